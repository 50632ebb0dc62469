export type CheckStatus = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  id: string;
  group: string;
  /** The interface section the check enforces, e.g. `4.3`. */
  section: string;
  title: string;
  status: CheckStatus;
  /** What failed, one line each (empty unless `fail`). */
  problems: string[];
  /** Why the check did not run (only `skip`). */
  reason?: string;
}

export interface Report {
  target: string;
  /** Who the kit acted as, when discovery found the user. */
  user?: string;
  team?: string;
  results: CheckResult[];
  summary: { passed: number; failed: number; skipped: number };
}

export function summarize(results: CheckResult[]): Report['summary'] {
  return {
    passed: results.filter((r) => r.status === 'pass').length,
    failed: results.filter((r) => r.status === 'fail').length,
    skipped: results.filter((r) => r.status === 'skip').length,
  };
}

const LABEL: Record<CheckStatus, string> = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' };
const MAX_PROBLEMS_SHOWN = 8;

/** The person-readable report: one line per check under its group, problems indented, then the summary. */
export function formatReport(report: Report): string {
  const lines = [`collab-host check ${report.target}`];
  if (report.user) lines.push(`acting as user ${report.user}${report.team ? ` of team ${report.team}` : ''}`);
  const width = Math.max(...report.results.map((r) => r.id.length), 10);
  let group = '';
  for (const result of report.results) {
    if (result.group !== group) {
      group = result.group;
      lines.push('', `${group}`);
    }
    const tail = result.status === 'skip' ? `skipped: ${result.reason ?? ''}` : result.title;
    lines.push(`  ${LABEL[result.status]}  ${result.id.padEnd(width)}  §${result.section.padEnd(4)} ${tail}`);
    for (const problem of result.problems.slice(0, MAX_PROBLEMS_SHOWN)) lines.push(`          - ${problem}`);
    if (result.problems.length > MAX_PROBLEMS_SHOWN) lines.push(`          - … and ${result.problems.length - MAX_PROBLEMS_SHOWN} more`);
  }
  const { passed, failed, skipped } = report.summary;
  lines.push('', `${passed} passed, ${failed} failed, ${skipped} skipped${failed === 0 ? '' : ' (conformance FAILED)'}`);
  return `${lines.join('\n')}\n`;
}
