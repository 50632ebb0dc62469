import type { OpenDatabase } from '../store/connection/database.js';
import { openWriteTurn, sqlDirectoryWriteStore } from '../store/directory-writes/directory-write-store.js';
import { applyChange, type ApplyContext } from './apply-change.js';
import type { DirectoryChangeListener, DirectoryChanges } from './directory-change-types.js';

export type { DirectoryDiff } from './change-diff.js';
export type { DirectorySection } from './directory-store.js';
// The types live apart so that apply-change.ts can use them without importing this module back.
export type { ApplyOptions, ApplyResult, DirectoryChange, DirectoryChangeListener, DirectoryChanges, DirectoryWriteTurn } from './directory-change-types.js';

/**
 * owners: which source keeps which team (from configuration, e.g. the LDAP and SCIM settings); a write
 * from any other source (the management API and snapshot imports included) to an owned team is refused
 * with 409 `team_owned_by_source`. listeners: see above. onThreadFailure: a bulk write's pinyin thread
 * failed (the keys were computed without it; a warning for the operator).
 */
export function directoryChanges(
  store: OpenDatabase,
  options: { owners?: ReadonlyMap<string, string>; listeners?: readonly DirectoryChangeListener[]; onThreadFailure?: (failure: Error) => void } = {},
): DirectoryChanges {
  const context: ApplyContext = {
    store: sqlDirectoryWriteStore(store),
    owners: options.owners ?? new Map<string, string>(),
    listeners: options.listeners ?? [],
    ...(options.onThreadFailure ? { onThreadFailure: options.onThreadFailure } : {}),
  };
  return {
    apply: (change, applyOptions) => applyChange(context, change, applyOptions),
    inTurn: (work) =>
      openWriteTurn(store, (db) => {
        const inside = { ...context, store: sqlDirectoryWriteStore(store, db) };
        const changes: DirectoryChanges = { apply: (change, applyOptions) => applyChange(inside, change, applyOptions), inTurn: (more) => more({ db, changes }) };
        return work({ db, changes });
      }),
  };
}
