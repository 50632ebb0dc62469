import { sql } from 'kysely';
import type { Db } from '../schema/schema.js';
import { dueSeatTasks } from '../platform/seat-task-due.js';

/** Candidates read per task wanted: enough that workers claiming at once each find tasks the others did not lock. */
const CANDIDATES_PER_TASK = 4;

/**
 * The due seat tasks, locked `FOR UPDATE SKIP LOCKED`: rows another instance is claiming are passed over.
 * InnoDB locks every row a locking read looks at before it sorts, so the due query itself (sorted by id
 * over the due index) would lock all due tasks and leave none to a second worker. The candidates are
 * read without locks, then locked through the primary key (forced: left to itself the planner takes the
 * due index again) in id order, which stops at `limit`; a locking read checks each row as last committed.
 */
export async function lockDueSeatTasks(trx: Db, nowMs: number, limit: number): Promise<number[]> {
  const candidates = (await dueSeatTasks(trx, nowMs, limit * CANDIDATES_PER_TASK).execute()).map((row) => row.id);
  if (candidates.length === 0) return [];
  const { rows } = await sql<{ id: number }>`
    SELECT id FROM platform_seat_tasks FORCE INDEX (PRIMARY)
     WHERE id IN (${sql.join(candidates)}) AND status = 'pending' AND next_attempt_ms <= ${nowMs}
     ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED`.execute(trx);
  return rows.map((row) => Number(row.id));
}
