import type { Config } from '../config/config.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { readTeamState } from '../store/directory-writes/directory-state.js';
import { sqlSyncRuns } from '../store/sync/sync-runs.js';
import type { DirectoryChanges } from '../directory-changes/directory-changes.js';
import type { LdapSyncDeps } from './ldap/ldap-sync.js';

/**
 * What an LDAP run needs, over the store; undefined when LDAP_URL is not set. `changes` is the composed
 * write path (src/composition/directory-writes.ts), passed in by the commands: sync/ sits below the composition.
 */
export function ldapSyncDeps(config: Config, store: OpenDatabase, changes: DirectoryChanges): LdapSyncDeps | undefined {
  if (!config.sync.ldap) return undefined;
  return { config: config.sync.ldap, changes, runs: sqlSyncRuns(store.db), readTeam: (teamId) => readTeamState(store.db, teamId) };
}
