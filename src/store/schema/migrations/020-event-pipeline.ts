import { sql, type Kysely } from 'kysely';
import { ID, type ColumnTypes } from './column-types.js';

/**
 * The event pipeline (events acknowledged at their append, effects derived from the log behind it):
 * - events: `status` becomes `outcome` (pending | processed | unprocessed | refused) with a `problem`,
 *   the received and effect times in milliseconds (the lag), and the `subject` (reminder or revision) an
 *   event is about; events stored but not acted on by earlier versions become `unprocessed`.
 * - effects remember the event that made them, so re-processing an event applies nothing twice:
 *   activity and revisions carry the event id (unique), reminders and callback failures the last one.
 */
export function eventPipelineMigration(t: ColumnTypes) {
  const millis = t.bigint;
  const mysql = t.dialect === 'mysql';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('events').renameColumn('status', 'outcome').execute();
      // One column per statement: SQLite adds one at a time.
      await db.schema.alterTable('events').addColumn('problem', t.text).execute();
      await db.schema.alterTable('events').addColumn('subject', t.key(ID)).execute();
      await db.schema.alterTable('events').addColumn('received_ms', millis).execute();
      await db.schema.alterTable('events').addColumn('effects_ms', millis).execute();
      await sql`UPDATE events SET outcome = 'unprocessed', problem = 'its kind or action was not known when it was received' WHERE outcome = 'stored'`.execute(db);

      // MySQL has no partial indexes: events_by_outcome serves the pending ones there, and events_by_subject
      // holds every event.
      if (!mysql) {
        await db.schema.createIndex('events_pending').on('events').columns(['id']).where(sql.ref('outcome'), '=', 'pending').execute();
      }
      await db.schema.createIndex('events_by_outcome').on('events').columns(['outcome', 'id']).execute();
      const bySubject = db.schema.createIndex('events_by_subject').on('events').columns(['subject', 'id']);
      await (mysql ? bySubject : bySubject.where(sql.ref('subject'), 'is not', null)).execute();

      // A DateMention update or remove names only the reminder: its file is looked up by the reminder id.
      await db.schema.createIndex('reminders_by_id').on('reminders').columns(['id']).execute();
      await db.schema
        .alterTable('reminders')
        .addColumn('last_event_id', millis, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('callback_failures')
        .addColumn('last_event_id', millis, (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('activity').addColumn('event_id', millis).execute();
      if (mysql) {
        // No partial indexes: the unique index is over a generated column that holds the event id where
        // the partial index would hold the row, and null (never a duplicate) elsewhere. Invisible: not in
        // SELECT *, nor written.
        await sql`ALTER TABLE activity ADD COLUMN once_event_id BIGINT AS (CASE WHEN related_user_id IS NULL THEN event_id END) VIRTUAL INVISIBLE`.execute(db);
        await sql`CREATE UNIQUE INDEX activity_once_per_event ON activity (once_event_id, kind)`.execute(db);
      } else {
        await db.schema
          .createIndex('activity_once_per_event')
          .on('activity')
          .columns(['event_id', 'kind'])
          .unique()
          .where(sql<boolean>`event_id IS NOT NULL AND related_user_id IS NULL`)
          .execute();
      }
      await db.schema.createIndex('revisions_once_per_event').on('revisions').columns(['event_id']).unique().execute();
    },
  };
}
