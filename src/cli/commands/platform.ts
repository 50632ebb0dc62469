import { loadConfig } from '../../config/config.js';
import { platformClientFor, platformUserFor } from '../../platform/configured-client.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { PlatformError } from '../../platform/platform-errors.js';
import { reconcileSeats } from '../../platform/seat-reconcile.js';
import { openDatabase } from '../../store/connection/database.js';
import { sqlSeatTasks } from '../../store/platform/seat-tasks.js';
import { CliError } from '../cli-error.js';
import { HelpRequested, parseCommandArgs, usageError } from '../command-args.js';
import { PLATFORM_CALLS, type PlatformCall } from './platform-calls.js';

const RECONCILE_USAGE = 'seats reconcile [--dry-run]   (bring the seats in line with the active users of DATABASE_URL, once)';

const USAGE = `usage: collab-host platform <call> [options] [--json]

Calls the platform API at PLATFORM_API_URL with APP_ID/APP_SECRET, as the platform's kit does (docs/platform.md).
--user U sends U's token (minted with TOKEN_SECRET) as the acting user. --json prints the answer as JSON.
Exit 0 done, 1 the platform failed (its status and body are printed), 2 a usage error.

calls:
${[...PLATFORM_CALLS.map((call) => call.usage), RECONCILE_USAGE].map((line) => `  ${line}`).join('\n')}`;

/** `collab-host platform <call> …`: one platform API call (or `seats reconcile`), printed for people or as JSON. */
export async function platformCommand(args: string[]): Promise<number> {
  const words = args[0] === 'seats' ? 2 : 1;
  const name = args.slice(0, words).join(' ');
  const rest = args.slice(words);
  if (name === '' || name === '--help' || name === '-h' || name === 'help') throw new HelpRequested(USAGE);
  if (name === 'seats reconcile') return reconcile(rest);
  const call = PLATFORM_CALLS.find((candidate) => candidate.name === name);
  if (!call) throw usageError(`unknown call "${name}"`, USAGE);
  return runCall(call, rest);
}

async function runCall(call: PlatformCall, args: string[]): Promise<number> {
  const usage = `usage: collab-host platform ${call.usage}`;
  const { values, positionals } = parseCommandArgs({ usage, options: { ...call.options, json: { type: 'boolean' } }, positionals: call.positionals ?? { min: 0, max: 0 } }, args);
  const config = loadConfig();
  // Without PLATFORM_API_URL a call fails when made, after its own options were checked (usage errors first).
  const client = platformClientFor(config) ?? (new Proxy({}, { get: () => () => Promise.reject(notConfigured()) }) as PlatformClient);
  const context = { values: values as Record<string, string | boolean | string[] | undefined>, positionals, client, userFor: platformUserFor(config), usage };
  let result: unknown;
  try {
    result = await call.run(context);
  } catch (error) {
    if (error instanceof PlatformError) throw new CliError(`platform ${call.name}: ${error.message}`);
    throw error;
  }
  if (values.json) process.stdout.write(`${JSON.stringify(result ?? { ok: true })}\n`);
  else if (result === undefined) process.stdout.write(`${call.done ? call.done(context) : 'done'}\n`);
  else process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  return 0;
}

async function reconcile(args: string[]): Promise<number> {
  const usage = `usage: collab-host platform ${RECONCILE_USAGE}`;
  const { values } = parseCommandArgs({ usage, options: { 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } } }, args);
  const config = loadConfig();
  const client = platformClientFor(config);
  if (!client) throw notConfigured();
  const store = await openDatabase(config.databaseUrl);
  try {
    const dryRun = values['dry-run'] === true;
    const plan = await reconcileSeats(client, await sqlSeatTasks(store.db).userStates(), { dryRun });
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ dryRun, ...plan })}\n`);
    } else {
      const verb = dryRun ? 'would' : 'did';
      process.stdout.write(
        `${plan.seatsListed} seats listed; ${verb} deactivate ${plan.deactivate.length}${list(plan.deactivate)}; ${verb} activate ${plan.activate.length}${list(plan.activate)}\n`,
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof PlatformError) throw new CliError(`platform seats reconcile: ${error.message}`);
    throw error;
  } finally {
    await store.close();
  }
}

const notConfigured = () => new CliError('PLATFORM_API_URL is not set: set it to the platform (or `collab-host simulate`) address');
const list = (ids: string[]) => (ids.length === 0 ? '' : ` (${ids.slice(0, 20).join(', ')}${ids.length > 20 ? ', …' : ''})`);
