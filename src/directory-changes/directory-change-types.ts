import type { Db } from '../store/schema/schema.js';
import type { ChangeProgress } from './change-progress.js';
import type { DirectoryDiff } from './change-diff.js';
import type { DirectorySection } from './directory-store.js';

/**
 * The one validated path of every directory write: the management API, snapshot imports (the CLI, demo
 * seeding) and the directory sources (SCIM, LDAP) all change teams, departments, users and files through
 * `DirectoryChanges.apply`, with one set of rules (src/directory-changes/validate.ts, change-rules.ts).
 */
export interface DirectoryChange {
  /** Records to create or replace, in the snapshot's record shapes (contracts.md); validated here. */
  upsert?: Partial<Record<DirectorySection, unknown[]>>;
  /** Ids to delete. */
  remove?: Partial<Record<DirectorySection, string[]>>;
}

export interface ApplyOptions {
  /** Who writes: 'api', 'snapshot', 'scim', 'ldap'; recorded, and checked against team ownership. */
  source: string;
  /** Validate and compute the diff; write nothing. */
  dryRun?: boolean;
  /** The directory becomes exactly `upsert` (snapshot --replace). */
  replace?: boolean;
  /** Allow a change that leaves a team with no users. */
  allowEmpty?: boolean;
  /** Directory against which snapshot `contentFile` paths resolve. */
  baseDir?: string;
  /** The largest snapshot `contentFile` (FILE_MAX_SIZE); default: no limit. */
  maxContentBytes?: number;
  /** Told what the change is doing, and of the rows written (a command's progress line). */
  progress?: ChangeProgress;
}

export type ApplyResult =
  /** `statisticsProblem`: the change committed, but the planner's statistics could not be refreshed after it (why). */
  | { ok: true; diff: DirectoryDiff; dryRun: boolean; statisticsProblem?: string }
  | { ok: false; status: 400 | 404 | 409; code: string; message: string; problems: Array<{ path: string; message: string }> };

/** Runs inside the change's transaction, after its writes: seat tasks, audit rows, cache versions. */
export type DirectoryChangeListener = (trx: Db, diff: DirectoryDiff, options: ApplyOptions) => Promise<void>;

export interface DirectoryChanges {
  apply(change: DirectoryChange, options: ApplyOptions): Promise<ApplyResult>;
  /**
   * Runs `work` in the directory's write turn: one transaction holding the directory write lock (every
   * instance and process waits for it), so a write computed from stored state (a grant added to a file's
   * sharing, a SCIM PATCH, an If-Match) reads what every earlier write committed and nothing commits in
   * between. `turn.db` reads inside it; `turn.changes.apply` writes inside it (a refused change rolls back
   * only itself). Committed when `work` returns, rolled back when it throws.
   */
  inTurn<T>(work: (turn: DirectoryWriteTurn) => Promise<T>): Promise<T>;
}

/** The inside of a write turn (DirectoryChanges.inTurn). */
export interface DirectoryWriteTurn {
  /** The turn's transaction: reads see every directory write committed before the turn began. */
  db: Db;
  /** Changes applied inside the turn. */
  changes: DirectoryChanges;
}
