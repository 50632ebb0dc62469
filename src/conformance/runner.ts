import { CheckContext, SkipCheck, type Check } from './check.js';
import { ALL_CHECKS, GROUPS } from './checks/index.js';
import { DiscoveryError, discover, type Discovered } from './discovery.js';
import { HttpFailure } from './http-client.js';
import { Probe, type KitOptions } from './probe.js';
import { summarize, type CheckResult, type Report } from './report.js';

export interface RunOptions extends KitOptions {
  /** Only these groups (or check ids). */
  only?: string[];
  /** Leave out these groups (or check ids). */
  skip?: string[];
}

export class SelectionError extends Error {
  override name = 'SelectionError';
}

/** The checks the options select; an unknown group or id is an error that names the known groups. */
export function selectChecks(only: string[] = [], skip: string[] = []): Check[] {
  for (const name of [...only, ...skip]) {
    if (!GROUPS.includes(name) && !ALL_CHECKS.some((check) => check.id === name)) {
      throw new SelectionError(`unknown check group "${name}"; groups are ${GROUPS.join(', ')}`);
    }
  }
  const named = (check: Check, names: string[]) => names.includes(check.group) || names.includes(check.id);
  return ALL_CHECKS.filter((check) => (only.length === 0 || named(check, only)) && !named(check, skip));
}

/**
 * Runs the selected checks one after another against the server, as the platform would call it. Discovery
 * comes first; when the current user cannot be read, it is reported as the one failure and the rest skip.
 */
export async function runChecks(options: RunOptions): Promise<Report> {
  const checks = selectChecks(options.only, options.skip);
  const probe = new Probe(options);
  const results: CheckResult[] = [];
  let found: Discovered;
  try {
    found = await discover(probe);
  } catch (error) {
    if (!(error instanceof DiscoveryError || error instanceof HttpFailure)) throw error;
    results.push({ id: 'discovery.current-user', group: 'discovery', section: '4.2', title: 'the kit finds the current user', status: 'fail', problems: [error.message] });
    for (const check of checks) results.push(result(check, 'skip', [], 'discovery failed'));
    return { target: options.baseUrl, results, summary: summarize(results) };
  }
  for (const check of checks) results.push(await runOne(check, new CheckContext(probe, found)));
  return {
    target: options.baseUrl,
    user: found.userId,
    ...(found.teamId !== undefined ? { team: found.teamId } : {}),
    results,
    summary: summarize(results),
  };
}

async function runOne(check: Check, context: CheckContext): Promise<CheckResult> {
  try {
    await check.run(context);
  } catch (error) {
    // A check that found problems before deciding to skip still fails: a problem is never hidden.
    if (error instanceof SkipCheck && context.problems.length === 0) return result(check, 'skip', [], error.message);
    if (error instanceof SkipCheck) return result(check, 'fail', context.problems);
    if (error instanceof HttpFailure) context.fail(error.message);
    else context.fail(`the check itself failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  return result(check, context.problems.length > 0 ? 'fail' : 'pass', context.problems);
}

function result(check: Check, status: CheckResult['status'], problems: string[], reason?: string): CheckResult {
  return {
    id: check.id,
    group: check.group,
    section: check.section,
    title: check.title,
    status,
    problems,
    ...(reason !== undefined ? { reason } : {}),
  };
}
