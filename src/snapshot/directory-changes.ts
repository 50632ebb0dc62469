import type { OpenDatabase } from '../store/database.js';
import { sqlDirectoryWriteStore } from '../store/directory-write-store.js';
import type { Db } from '../store/schema.js';
import { applyChange } from './apply-change.js';
import type { DirectoryDiff } from './change-diff.js';
import type { DirectorySection } from './directory-store.js';

export type { DirectoryDiff } from './change-diff.js';
export type { DirectorySection } from './directory-store.js';

/**
 * The one validated path of every directory write: the management API, snapshot imports (the CLI, demo
 * seeding) and the directory sources (SCIM, LDAP) all change teams, departments, users and files through
 * `DirectoryChanges.apply`, with one set of rules (src/snapshot/validate.ts, change-rules.ts).
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
}

export type ApplyResult =
  | { ok: true; diff: DirectoryDiff; dryRun: boolean }
  | { ok: false; status: 400 | 404 | 409; code: string; message: string; problems: Array<{ path: string; message: string }> };

/** Runs inside the change's transaction, after its writes: seat tasks, audit rows, cache versions. */
export type DirectoryChangeListener = (trx: Db, diff: DirectoryDiff, options: ApplyOptions) => Promise<void>;

export interface DirectoryChanges {
  apply(change: DirectoryChange, options: ApplyOptions): Promise<ApplyResult>;
}

/**
 * owners: which source keeps which team (from configuration, e.g. the LDAP and SCIM settings); a write
 * from any other source (the management API and snapshot imports included) to an owned team is refused
 * with 409 `team_owned_by_source`. listeners: see above.
 */
export function directoryChanges(
  store: OpenDatabase,
  options: { owners?: ReadonlyMap<string, string>; listeners?: readonly DirectoryChangeListener[] } = {},
): DirectoryChanges {
  const context = { store: sqlDirectoryWriteStore(store), owners: options.owners ?? new Map<string, string>(), listeners: options.listeners ?? [] };
  return { apply: (change, applyOptions) => applyChange(context, change, applyOptions) };
}
