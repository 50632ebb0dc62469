import { formatTime } from '../directory/time.js';
import type { SyncRunStore } from '../store/sync-runs.js';
import type { ApplyResult, DirectoryDiff, DirectorySection } from '../snapshot/directory-changes.js';
import type { SyncSource } from './owners.js';

export type RunMode = 'full' | 'incremental' | 'request';

/** How a run ended: `unchanged` when the change path found nothing to write (or a probe found nothing to read). */
export interface RunReport {
  runId: number;
  status: 'ok' | 'unchanged' | 'failed';
  dryRun: boolean;
  diff: DirectoryDiff | undefined;
  /** The change path's refusal, when it refused. */
  refusal: Extract<ApplyResult, { ok: false }> | undefined;
  errors: string[];
  detail: string | null;
}

/** What a run's work returns: the change path's answer, or a reason why nothing was applied. */
export type RunWork = () => Promise<{ result: ApplyResult; detail?: string } | { skipped: string }>;

/** Ids listed per section and kind in a run's record; counts stay exact beyond it. */
const LISTED_IDS = 200;
const SECTIONS: DirectorySection[] = ['teams', 'departments', 'users', 'files'];

const total = (lists: Record<DirectorySection, string[]>) => SECTIONS.reduce((sum, section) => sum + lists[section].length, 0);

export function isEmptyDiff(diff: DirectoryDiff): boolean {
  return total(diff.created) + total(diff.updated) + total(diff.removed) + diff.deactivatedUsers.length + diff.reactivatedUsers.length === 0;
}

function listedChanges(diff: DirectoryDiff): Record<string, Record<string, string[]>> {
  const changes: Record<string, Record<string, string[]>> = {};
  const add = (section: string, kind: string, ids: string[]) => {
    if (ids.length === 0) return;
    (changes[section] ??= {})[kind] = ids.slice(0, LISTED_IDS);
  };
  for (const section of SECTIONS) {
    add(section, 'created', diff.created[section]);
    add(section, 'updated', diff.updated[section]);
    add(section, 'removed', diff.removed[section]);
  }
  add('users', 'deactivated', diff.deactivatedUsers);
  add('users', 'reactivated', diff.reactivatedUsers);
  return changes;
}

/**
 * Runs one sync run and records it (source, mode, start, duration, counts, errors): a row `running`
 * first, so a run that dies half way is still listed. A failure of the work is recorded and reported,
 * not thrown.
 */
export async function recordedRun(
  runs: SyncRunStore,
  run: { source: SyncSource; mode: RunMode; dryRun: boolean; detail: string | null },
  work: RunWork,
  now: () => number = Date.now,
): Promise<RunReport> {
  const started = now();
  const runId = await runs.start({ ...run, startedAt: formatTime(started) });
  let report: RunReport;
  try {
    const outcome = await work();
    if ('skipped' in outcome) {
      report = { runId, status: 'unchanged', dryRun: run.dryRun, diff: undefined, refusal: undefined, errors: [], detail: outcome.skipped };
    } else if (!outcome.result.ok) {
      const { result } = outcome;
      const errors = result.problems.length > 0 ? result.problems.map((problem) => `${problem.path} ${problem.message}`) : [`${result.code}: ${result.message}`];
      report = { runId, status: 'failed', dryRun: run.dryRun, diff: undefined, refusal: result, errors, detail: outcome.detail ?? run.detail };
    } else {
      const { diff } = outcome.result;
      report = { runId, status: isEmptyDiff(diff) ? 'unchanged' : 'ok', dryRun: run.dryRun, diff, refusal: undefined, errors: [], detail: outcome.detail ?? run.detail };
    }
  } catch (error) {
    report = { runId, status: 'failed', dryRun: run.dryRun, diff: undefined, refusal: undefined, errors: [error instanceof Error ? error.message : String(error)], detail: run.detail };
  }
  const diff = report.diff;
  await runs.finish(runId, {
    status: report.status,
    detail: report.detail,
    durationMs: now() - started,
    counts: {
      created: diff ? total(diff.created) : 0,
      updated: diff ? total(diff.updated) : 0,
      removed: diff ? total(diff.removed) : 0,
      deactivated: diff?.deactivatedUsers.length ?? 0,
      reactivated: diff?.reactivatedUsers.length ?? 0,
    },
    changes: diff ? listedChanges(diff) : {},
    errors: report.errors,
  });
  return report;
}
