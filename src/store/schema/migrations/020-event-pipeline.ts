import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../../dialect/dialect.js';

/**
 * The event pipeline (events acknowledged at their append, effects derived from the log behind it):
 * - events: `status` becomes `outcome` (pending | processed | unprocessed | refused) with a `problem`,
 *   the received and effect times in milliseconds (the lag), and the `subject` (reminder or revision) an
 *   event is about; events stored but not acted on by earlier versions become `unprocessed`.
 * - effects remember the event that made them, so re-processing an event applies nothing twice:
 *   activity and revisions carry the event id (unique), reminders and callback failures the last one.
 */
export function eventPipelineMigration(dialect: DialectName) {
  const millis = dialect === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('events').renameColumn('status', 'outcome').execute();
      // One column per statement: SQLite adds one at a time.
      await db.schema.alterTable('events').addColumn('problem', 'text').execute();
      await db.schema.alterTable('events').addColumn('subject', 'text').execute();
      await db.schema.alterTable('events').addColumn('received_ms', millis).execute();
      await db.schema.alterTable('events').addColumn('effects_ms', millis).execute();
      await sql`UPDATE events SET outcome = 'unprocessed', problem = 'its kind or action was not known when it was received' WHERE outcome = 'stored'`.execute(db);

      await db.schema
        .createIndex('events_pending')
        .on('events')
        .columns(['id'])
        .where(sql.ref('outcome'), '=', 'pending')
        .execute();
      await db.schema.createIndex('events_by_outcome').on('events').columns(['outcome', 'id']).execute();
      await db.schema
        .createIndex('events_by_subject')
        .on('events')
        .columns(['subject', 'id'])
        .where(sql.ref('subject'), 'is not', null)
        .execute();

      // A DateMention update or remove names only the reminder: its file is looked up by the reminder id.
      await db.schema.createIndex('reminders_by_id').on('reminders').columns(['id']).execute();
      await db.schema.alterTable('reminders').addColumn('last_event_id', millis, (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('callback_failures').addColumn('last_event_id', millis, (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('activity').addColumn('event_id', millis).execute();
      await db.schema
        .createIndex('activity_once_per_event')
        .on('activity')
        .columns(['event_id', 'kind'])
        .unique()
        .where(sql<boolean>`event_id IS NOT NULL AND related_user_id IS NULL`)
        .execute();
      await db.schema.createIndex('revisions_once_per_event').on('revisions').columns(['event_id']).unique().execute();
    },
  };
}
