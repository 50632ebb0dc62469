import type { Db } from '../schema/schema.js';
import { dueSeatTasks } from '../platform/seat-task-due.js';

/** The due seat tasks, locked `FOR UPDATE SKIP LOCKED`: rows another instance is claiming are passed over. */
export async function lockDueSeatTasks(trx: Db, nowMs: number, limit: number): Promise<number[]> {
  const rows = await dueSeatTasks(trx, nowMs, limit).forUpdate().skipLocked().execute();
  return rows.map((row) => Number(row.id));
}
