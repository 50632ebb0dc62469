import type { ChangeProgress } from '../directory-changes/change-progress.js';
import type { DirectoryChanges, DirectoryDiff } from '../directory-changes/directory-changes.js';

export interface ImportOptions {
  /** true: the directory becomes exactly the snapshot; false (default): upsert by id. */
  replace?: boolean;
  /** Directory of the snapshot file (`contentFile` paths are relative to it). */
  baseDir?: string;
  /** The largest `contentFile` (FILE_MAX_SIZE, as for an upload); default: no limit. */
  maxContentBytes?: number;
  /** Check and compute what would change; write nothing. */
  dryRun?: boolean;
  /** Allow an import that leaves a team with no active users by leaving them out or moving them, or (replace) removes every team; deactivations need no allowance. */
  allowEmpty?: boolean;
  /** Told how far the import got (the command's progress line). */
  progress?: ChangeProgress;
}

/** What a snapshot holds (and an import wrote): records per section, grants and stored contents. */
export interface ImportCounts {
  teams: number;
  departments: number;
  users: number;
  files: number;
  grants: number;
  contents: number;
}

export type ImportResult =
  | { ok: true; counts: ImportCounts; diff: DirectoryDiff; dryRun: boolean; statisticsProblem?: string }
  | { ok: false; status: 400 | 404 | 409; code: string; message: string; problems: Array<{ path: string; message: string }> };

/**
 * Imports a snapshot through the one validated path (source `snapshot`), in ONE transaction: all of it,
 * or (with any problem) none of it. A snapshot that breaks a rule is refused whole, every problem listed.
 */
export async function importSnapshot(changes: DirectoryChanges, input: unknown, options: ImportOptions = {}): Promise<ImportResult> {
  const result = await changes.apply(
    { upsert: input as Record<string, unknown[]> },
    {
      source: 'snapshot',
      replace: options.replace ?? false,
      dryRun: options.dryRun ?? false,
      allowEmpty: options.allowEmpty ?? false,
      ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
      ...(options.maxContentBytes === undefined ? {} : { maxContentBytes: options.maxContentBytes }),
      ...(options.progress ? { progress: options.progress } : {}),
    },
  );
  if (!result.ok) return result;
  const { statisticsProblem } = result;
  return { ok: true, counts: countsOf(input), diff: result.diff, dryRun: result.dryRun, ...(statisticsProblem === undefined ? {} : { statisticsProblem }) };
}

/** The counts of a snapshot that passed validation. */
function countsOf(snapshot: unknown): ImportCounts {
  const sections = snapshot as { teams?: unknown[]; departments?: unknown[]; users?: unknown[]; files?: Array<{ sharing?: unknown[]; contentFile?: string }> };
  const files = sections.files ?? [];
  return {
    teams: sections.teams?.length ?? 0,
    departments: sections.departments?.length ?? 0,
    users: sections.users?.length ?? 0,
    files: files.length,
    grants: files.reduce((sum, file) => sum + (file.sharing?.length ?? 0), 0),
    contents: files.filter((file) => file.contentFile !== undefined).length,
  };
}
