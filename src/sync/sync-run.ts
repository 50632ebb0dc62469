import { formatTime } from '../directory/time.js';
import type { SyncRunStore } from '../store/sync/sync-runs.js';
import type { ApplyResult, DirectoryDiff, DirectorySection } from '../directory-changes/directory-changes.js';
import type { SyncSource } from './owners.js';
import type { SkippedEntry, SyncRunRow } from './sync-run-shape.js';

export type RunMode = 'full' | 'incremental' | 'request';

/** How a run ended: `unchanged` when the change path found nothing to write (or a probe found nothing to read). */
export interface RunReport {
  runId: number;
  status: 'ok' | 'unchanged' | 'failed';
  dryRun: boolean;
  /** What was written (or, in a dry run, would be); a failed run's is what it wrote before the failure, if anything. */
  diff: DirectoryDiff | undefined;
  /** The change path's refusal, when it refused. */
  refusal: Extract<ApplyResult, { ok: false }> | undefined;
  errors: string[];
  detail: string | null;
  /** Entries left out (the rest was applied); counted in full, listed up to LISTED_IDS. */
  skipped: SkippedEntry[];
}

/**
 * What a run's work returns: the change path's answer and the entries it left out, or why nothing was read.
 * `applied`: what a run whose last step was refused wrote before it (LDAP writes leavers first).
 */
export type RunWork = () => Promise<{ result: ApplyResult; detail?: string; skipped?: SkippedEntry[]; applied?: DirectoryDiff } | { unchangedAtSource: string }>;

/** Ids listed per section and kind in a run's record; counts stay exact beyond it. */
const LISTED_IDS = 200;
const SECTIONS: DirectorySection[] = ['teams', 'departments', 'users', 'files'];

const total = (lists: Record<DirectorySection, string[]>) => SECTIONS.reduce((sum, section) => sum + lists[section].length, 0);

export function isEmptyDiff(diff: DirectoryDiff): boolean {
  return total(diff.created) + total(diff.updated) + total(diff.removed) + diff.deactivatedUsers.length + diff.reactivatedUsers.length === 0;
}

/**
 * Users removed while active are in the diff's `deactivatedUsers` too (their seats go): a run reports them
 * once, as removed; `deactivated` lists the users kept, deactivated.
 */
function keptDeactivated(diff: DirectoryDiff): string[] {
  const removed = new Set(diff.removed.users);
  return diff.deactivatedUsers.filter((id) => !removed.has(id));
}

/** What a run reports it did: each record counted once. */
export function runCounts(diff: DirectoryDiff | undefined, skipped = 0): SyncRunRow['counts'] {
  return {
    created: diff ? total(diff.created) : 0,
    updated: diff ? total(diff.updated) : 0,
    removed: diff ? total(diff.removed) : 0,
    deactivated: diff ? keptDeactivated(diff).length : 0,
    reactivated: diff?.reactivatedUsers.length ?? 0,
    skipped,
  };
}

/** The ids of a run's changes per section and kind, each user once (see `runCounts`). */
export function changedIds(diff: DirectoryDiff): Array<{ section: DirectorySection; kind: string; ids: string[] }> {
  const lists: Array<{ section: DirectorySection; kind: string; ids: string[] }> = [];
  for (const section of SECTIONS) {
    for (const kind of ['created', 'updated', 'removed'] as const) lists.push({ section, kind, ids: diff[kind][section] });
  }
  lists.push({ section: 'users', kind: 'deactivated', ids: keptDeactivated(diff) }, { section: 'users', kind: 'reactivated', ids: diff.reactivatedUsers });
  return lists.filter((list) => list.ids.length > 0);
}

function listedChanges(diff: DirectoryDiff): Record<string, Record<string, string[]>> {
  const changes: Record<string, Record<string, string[]>> = {};
  for (const { section, kind, ids } of changedIds(diff)) (changes[section] ??= {})[kind] = ids.slice(0, LISTED_IDS);
  return changes;
}

/**
 * Runs one sync run and records it (source, mode, start, duration, counts, errors): a row `running`
 * first, so a run that dies half way is still listed. Inside a write turn's transaction (a SCIM request)
 * that row would never be seen, as the turn commits or drops both: the run is written once, at its end.
 * A failure of the work is recorded and reported, not thrown.
 */
export async function recordedRun(
  runs: SyncRunStore,
  run: { source: SyncSource; mode: RunMode; dryRun: boolean; detail: string | null },
  work: RunWork,
  now: () => number = Date.now,
): Promise<RunReport> {
  const started = now();
  const start = { ...run, startedAt: formatTime(started) };
  const startedId = runs.insideTransaction ? undefined : await runs.start(start);
  let report: Omit<RunReport, 'runId'>;
  try {
    const outcome = await work();
    if ('unchangedAtSource' in outcome) {
      report = { status: 'unchanged', dryRun: run.dryRun, diff: undefined, refusal: undefined, errors: [], detail: outcome.unchangedAtSource, skipped: [] };
    } else if (!outcome.result.ok) {
      const { result } = outcome;
      const errors = result.problems.length > 0 ? result.problems.map((problem) => `${problem.path} ${problem.message}`) : [`${result.code}: ${result.message}`];
      report = {
        status: 'failed',
        dryRun: run.dryRun,
        diff: outcome.applied,
        refusal: result,
        errors,
        detail: outcome.detail ?? run.detail,
        skipped: outcome.skipped ?? [],
      };
    } else {
      const { diff } = outcome.result;
      const status = isEmptyDiff(diff) ? 'unchanged' : 'ok';
      report = { status, dryRun: run.dryRun, diff, refusal: undefined, errors: [], detail: outcome.detail ?? run.detail, skipped: outcome.skipped ?? [] };
    }
  } catch (error) {
    report = {
      status: 'failed',
      dryRun: run.dryRun,
      diff: undefined,
      refusal: undefined,
      errors: [error instanceof Error ? error.message : String(error)],
      detail: run.detail,
      skipped: [],
    };
  }
  const diff = report.diff;
  const end = {
    status: report.status,
    detail: report.detail,
    durationMs: now() - started,
    counts: runCounts(diff, report.skipped.length),
    changes: diff ? listedChanges(diff) : {},
    skipped: report.skipped.slice(0, LISTED_IDS),
    errors: report.errors,
  };
  if (startedId === undefined) return { runId: await runs.record(start, end), ...report };
  await runs.finish(startedId, end);
  return { runId: startedId, ...report };
}
