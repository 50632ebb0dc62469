import type { Db } from '../schema/schema.js';

/** Due pending tasks that are their user's oldest pending one, oldest first (shared by both dialects' claims). */
export function dueSeatTasks(db: Db, nowMs: number, limit: number) {
  return db
    .selectFrom('platform_seat_tasks as t')
    .select('t.id')
    .where('t.status', '=', 'pending')
    .where('t.next_attempt_ms', '<=', nowMs)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('platform_seat_tasks as o').select('o.id').whereRef('o.user_id', '=', 't.user_id').where('o.status', '=', 'pending').whereRef('o.id', '<', 't.id'))),
    )
    .orderBy('t.id')
    .limit(limit);
}
