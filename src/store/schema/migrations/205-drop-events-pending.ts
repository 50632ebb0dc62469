import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * Drops the partial index `events_pending (id) WHERE outcome = 'pending'` that migration 020 made on
 * SQLite and PostgreSQL beside `events_by_outcome (outcome, id)`. The full index serves every query the
 * partial one did (src/store/events/event-log.ts: the pending events oldest first, the statistics' oldest
 * pending one, the claim by id and outcome; SQLite's planner chose `events_by_outcome` for them already),
 * while every event paid for the partial one twice: written at its append, removed when processed.
 * MySQL never had it.
 *
 * PostgreSQL plans the pending query from its statistics: while they still say most events are pending
 * (taken during a backlog of most of the log, until autovacuum analyzes the table again) it may walk the
 * primary key past the processed events instead, where the partial index left it no choice.
 */
export function dropEventsPendingMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (t.dialect === 'mysql') return;
      await sql`DROP INDEX IF EXISTS events_pending`.execute(db);
    },
  };
}
