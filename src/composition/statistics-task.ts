import { PollingTask, type TaskLog } from '../events/polling-task.js';
import type { OpenDatabase } from '../store/connection/database.js';

/** How often a serving process brings the planner's statistics up to date. */
export const STATISTICS_INTERVAL_MS = 3_600_000;

/**
 * The planner's statistics kept up while the server runs: on SQLite, tables that grew or shrank a lot
 * since they were last analysed (the event log of a new install, a directory imported by another process)
 * are analysed again, and every connection to the file loads them (src/store/sqlite/statistics.ts).
 * Nothing on PostgreSQL and MySQL, which keep their own.
 */
export function statisticsTask(store: OpenDatabase, log: TaskLog, intervalMs = STATISTICS_INTERVAL_MS): PollingTask {
  return new PollingTask(
    'statistics',
    async () => {
      await store.keepStatistics();
      return false;
    },
    intervalMs,
    log,
  );
}
