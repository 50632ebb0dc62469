import type { Db } from '../schema/schema.js';

/**
 * SQLite: nothing. Its planner leans on the indexes and the `sqlite_stat1` table, which is only written by
 * an explicit ANALYZE; our queries are planned well without it, and an ANALYZE over a large store would
 * hold the write lock for seconds.
 */
export async function refreshStatistics(_db: Db, _tables: readonly string[]): Promise<void> {}
