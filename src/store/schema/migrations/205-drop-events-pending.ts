import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * Drops, on SQLite, the partial index `events_pending (id) WHERE outcome = 'pending'` that migration 020
 * made beside `events_by_outcome (outcome, id)`. SQLite's planner never chose it: `events_by_outcome`
 * serves every query it could (src/store/events/event-log.ts: the pending events oldest first, the
 * statistics' oldest pending one, the claim by id and outcome), while every event paid for it twice,
 * written at its append and removed when processed.
 *
 * PostgreSQL keeps it: there the pending query is planned from statistics, and while they still say most
 * events are pending (taken during a backlog, until autovacuum analyzes the table again) the planner
 * walked the primary key past the processed events without it (332 ms a poll against 63 ms on a log of
 * 300,000 events), where the partial index leaves it no other choice. MySQL never had it.
 */
export function dropEventsPendingMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (t.dialect !== 'sqlite') return;
      await sql`DROP INDEX IF EXISTS events_pending`.execute(db);
    },
  };
}
