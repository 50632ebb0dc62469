import { directoryAuditListener } from '../audit/directory-audit.js';
import type { Config } from '../config/config.js';
import { seatTasksListener } from '../platform/seat-tasks.js';
import { directoryChanges, type DirectoryChangeListener, type DirectoryChanges } from '../directory-changes/directory-changes.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { sqlSeatTasks } from '../store/platform/seat-tasks.js';
import { syncOwners } from '../sync/owners.js';

/**
 * The one composition of the directory write path: `buildApp` (context.directoryChanges) and every command
 * that writes the directory (import, sync, …) build theirs here, so every writer has the same owners and
 * listeners: the configured team owners, the platform seat tasks (a user deactivated or removed gives
 * back their seat, when PLATFORM_API_URL is set), the audit log's entries, then whatever the caller adds.
 */
export function composeDirectoryChanges(config: Config, store: OpenDatabase, listeners: readonly DirectoryChangeListener[] = []): DirectoryChanges {
  return directoryChanges(store, { owners: directoryOwners(config), listeners: [...standardListeners(config), ...listeners] });
}

/** The listeners every directory change runs, whoever writes it. */
function standardListeners(config: Config): DirectoryChangeListener[] {
  return [seatTasksListener(config, sqlSeatTasks), directoryAuditListener()];
}

/**
 * Which source keeps which team (team id -> source), from configuration: the teams of the SCIM and LDAP
 * settings. Empty: every source may write every team.
 */
export function directoryOwners(config: Config): ReadonlyMap<string, string> {
  return syncOwners(config);
}
