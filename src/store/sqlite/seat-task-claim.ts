import type { Db } from '../schema/schema.js';
import { dueSeatTasks } from '../platform/seat-task-due.js';

/** The due seat tasks. SQLite has one writer: the claim's conditional UPDATE in the same transaction is enough. */
export async function lockDueSeatTasks(trx: Db, nowMs: number, limit: number): Promise<number[]> {
  const rows = await dueSeatTasks(trx, nowMs, limit).execute();
  return rows.map((row) => Number(row.id));
}
