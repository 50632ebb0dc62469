import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import { dialectOf } from '../dialect/dialect.js';
import type { Db } from '../schema/schema.js';
import type { SeatAction } from '../../platform/seat-tasks.js';
import type { PlatformTables } from '../schema/tables/platform.js';

export type SeatTaskRow = Selectable<PlatformTables['platform_seat_tasks']>;
export type { SeatAction } from '../../platform/seat-tasks.js';

/** A batch of seat tasks claimed by one worker: send them, then `finish` or `retry` with the same claim. */
export interface ClaimedSeatTasks {
  claimToken: string;
  tasks: Array<{ id: number; userId: string; action: SeatAction; attempt: number }>;
}

/** The seat task queue (table `platform_seat_tasks`). Each member runs on the store or inside a transaction. */
export interface SeatTaskStore {
  /**
   * Queues one task per user, due now. A user's older task that no worker holds yet is `superseded`: only
   * the latest wish about a seat is sent. Runs inside the directory change's transaction.
   */
  enqueue(tasks: ReadonlyArray<{ userId: string; action: SeatAction }>, options: { source: string; nowMs: number }): Promise<number>;
  /**
   * Claims up to `limit` due tasks: each moves `leaseMs` ahead (a worker that dies is replaced after the
   * lease) and counts an attempt. Only a user's oldest pending task is due, so a user's tasks run in order;
   * PostgreSQL locks the rows `FOR UPDATE SKIP LOCKED`, so instances never claim the same row.
   */
  claim(options: { limit: number; leaseMs: number; nowMs: number }): Promise<ClaimedSeatTasks>;
  /** Marks claimed tasks done. */
  finish(claimToken: string, ids: readonly number[], nowMs: number): Promise<void>;
  /** Puts claimed tasks back for a later attempt, with the reason. */
  retry(claimToken: string, ids: readonly number[], nextAttemptMs: number, error: string): Promise<void>;
  /** Tasks newest first, after the cursor id (exclusive), optionally of one status. */
  list(options: { status?: string; beforeId?: number; limit: number }): Promise<SeatTaskRow[]>;
  /** Every user of the directory and whether they are active (reconcile). */
  userStates(): Promise<Array<{ id: string; active: boolean }>>;
}

export function sqlSeatTasks(db: Db): SeatTaskStore {
  return {
    async enqueue(tasks, { source, nowMs }) {
      if (tasks.length === 0) return 0;
      const userIds = [...new Set(tasks.map((task) => task.userId))];
      await db
        .updateTable('platform_seat_tasks')
        .set({ status: 'superseded', done_at: isoSeconds(nowMs) })
        .where('user_id', 'in', userIds)
        .where('status', '=', 'pending')
        .where('claim_token', 'is', null)
        .execute();
      const createdAt = isoSeconds(nowMs);
      await db
        .insertInto('platform_seat_tasks')
        .values(
          tasks.map((task) => ({
            user_id: task.userId,
            action: task.action,
            status: 'pending',
            next_attempt_ms: nowMs,
            claim_token: null,
            last_error: null,
            source,
            created_at: createdAt,
            done_at: null,
          })),
        )
        .execute();
      return tasks.length;
    },
    async claim({ limit, leaseMs, nowMs }) {
      const claimToken = randomUUID();
      const rows = await (db.isTransaction ? claimIn(db, claimToken, limit, leaseMs, nowMs) : db.transaction().execute((trx) => claimIn(trx, claimToken, limit, leaseMs, nowMs)));
      return { claimToken, tasks: rows.map((row) => ({ id: row.id, userId: row.user_id, action: row.action as SeatAction, attempt: row.attempts })) };
    },
    async finish(claimToken, ids, nowMs) {
      if (ids.length === 0) return;
      await db
        .updateTable('platform_seat_tasks')
        .set({ status: 'done', done_at: isoSeconds(nowMs), claim_token: null, last_error: null })
        .where('id', 'in', [...ids])
        .where('claim_token', '=', claimToken)
        .execute();
    },
    async retry(claimToken, ids, nextAttemptMs, error) {
      if (ids.length === 0) return;
      await db
        .updateTable('platform_seat_tasks')
        .set({ next_attempt_ms: nextAttemptMs, claim_token: null, last_error: error.slice(0, 1000) })
        .where('id', 'in', [...ids])
        .where('claim_token', '=', claimToken)
        .execute();
    },
    list({ status, beforeId, limit }) {
      let query = db.selectFrom('platform_seat_tasks').selectAll().orderBy('id', 'desc').limit(limit);
      if (status !== undefined) query = query.where('status', '=', status);
      if (beforeId !== undefined) query = query.where('id', '<', beforeId);
      return query.execute();
    },
    async userStates() {
      const rows = await db.selectFrom('users').select(['id', 'active']).orderBy('id').execute();
      return rows.map((row) => ({ id: row.id, active: Number(row.active) !== 0 }));
    },
  };
}

async function claimIn(trx: Db, claimToken: string, limit: number, leaseMs: number, nowMs: number) {
  const ids = await dialectOf(trx).lockDueSeatTasks(trx, nowMs, limit);
  if (ids.length === 0) return [];
  return dialectOf(trx).updateReturning(
    trx,
    'platform_seat_tasks',
    (query) => query.where('id', 'in', ids).where('status', '=', 'pending'),
    { attempts: sql<number>`attempts + 1`, next_attempt_ms: nowMs + leaseMs, claim_token: claimToken },
    ['id', 'user_id', 'action', 'attempts'],
  );
}

/** `YYYY-MM-DDThh:mm:ssZ`, as every time the store keeps. */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
