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
 * `onThreadFailure`: where a failed pinyin thread of a bulk write is said (a log, stderr).
 */
export function composeDirectoryChanges(
  config: Config,
  store: OpenDatabase,
  listeners: readonly DirectoryChangeListener[] = [],
  options: { onThreadFailure?: (failure: Error) => void } = {},
): DirectoryChanges {
  return directoryChanges(store, { owners: directoryOwners(config), listeners: [...standardListeners(config), ...listeners], ...options });
}

/** What an operator is told when a bulk write's pinyin thread failed: in the service's log. */
export function logThreadFailure(log: { warn(details: object, message: string): void }): (failure: Error) => void {
  return (failure) => log.warn({ err: failure, component: 'directory' }, THREAD_FAILURE);
}

/** The same, from a command: on its standard error. */
export function printThreadFailure(stderr: { write(text: string): unknown }): (failure: Error) => void {
  return (failure) => stderr.write(`warning: ${THREAD_FAILURE} (${failure.message})\n`);
}

const THREAD_FAILURE = 'the pinyin keys of a bulk directory write were computed without their thread, slower';

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
