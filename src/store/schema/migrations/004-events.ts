import type { Kysely } from 'kysely';
import { ID, SHORT, type ColumnTypes } from './column-types.js';

/** Characters of a URL or a deduplication key in a key of its own (768 utf8mb4 characters fill an index on MySQL). */
const LONG_KEY = 760;

/**
 * Events (issue 5): the append-only event log, reminders, presence, the revision log, callback failures,
 * and the notification outbox (one delivery row per receiver, so one failing receiver never makes the
 * others receive a notification twice). Epoch-millisecond columns are 64-bit integers on every dialect.
 */
export function eventsMigration(t: ColumnTypes) {
  const { serial, serialKey, text } = t;
  const millis = t.bigint;
  const id = t.key(ID);
  const short = t.key(SHORT);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await t
        .table(db.schema.createTable('events'))
        .addColumn('id', serial, serialKey)
        // sha256 of the header kind and the raw body: the same delivery twice has one effect.
        .addColumn('delivery_key', id, (c) => c.notNull().unique())
        .addColumn('kind', short, (c) => c.notNull())
        .addColumn('action', text)
        .addColumn('file_id', id)
        .addColumn('user_id', text)
        .addColumn('credential', text, (c) => c.notNull())
        .addColumn('status', short, (c) => c.notNull())
        .addColumn('received_at', short, (c) => c.notNull())
        .addColumn('body', text, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_by_file').on('events').columns(['file_id', 'id']).execute();
      await db.schema.createIndex('events_by_kind').on('events').columns(['kind', 'id']).execute();
      await db.schema.createIndex('events_by_received').on('events').columns(['received_at', 'id']).execute();

      await t
        .table(db.schema.createTable('notifications'))
        .addColumn('seq', serial, serialKey)
        .addColumn('id', id, (c) => c.notNull().unique())
        .addColumn('type', text, (c) => c.notNull())
        .addColumn('occurred_at', text, (c) => c.notNull())
        .addColumn('data', text, (c) => c.notNull())
        .addColumn('status', short, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        // Set when one fact may be reported by two events (a mention in a comment and its MentionAt).
        .addColumn('dedupe_key', t.key(LONG_KEY), (c) => c.unique())
        .addColumn('event_id', millis)
        .addColumn('created_at', short, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('notifications_by_status').on('notifications').columns(['status', 'seq']).execute();

      await t
        .table(db.schema.createTable('notification_deliveries'))
        .addColumn('id', serial, serialKey)
        .addColumn('notification_id', id, (c) => c.notNull())
        .addColumn('receiver', t.key(LONG_KEY), (c) => c.notNull())
        .addColumn('status', short, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_ms', millis, (c) => c.notNull())
        .addColumn('claim_token', id)
        .addColumn('last_error', text)
        .addColumn('delivered_at', text)
        .execute();
      await db.schema.createIndex('deliveries_due').on('notification_deliveries').columns(['status', 'next_attempt_ms']).execute();
      await db.schema.createIndex('deliveries_by_notification').on('notification_deliveries').columns(['notification_id']).execute();

      await t
        .table(db.schema.createTable('reminders'))
        .addColumn('seq', serial, serialKey)
        .addColumn('file_id', id, (c) => c.notNull())
        .addColumn('id', id, (c) => c.notNull())
        .addColumn('author_id', text, (c) => c.notNull())
        .addColumn('content', text, (c) => c.notNull())
        .addColumn('remind_user_ids', text, (c) => c.notNull())
        .addColumn('remind_at', text, (c) => c.notNull())
        .addColumn('due_at_ms', millis, (c) => c.notNull())
        .addColumn('status', short, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .addColumn('fired_at', text)
        .addUniqueConstraint('reminders_file_reminder', ['file_id', 'id'])
        .execute();
      await db.schema.createIndex('reminders_due').on('reminders').columns(['status', 'due_at_ms']).execute();
      await db.schema.createIndex('reminders_by_file').on('reminders').columns(['file_id', 'seq']).execute();

      await t
        .table(db.schema.createTable('presence'))
        .addColumn('file_id', id, (c) => c.notNull())
        .addColumn('user_id', id, (c) => c.notNull())
        .addColumn('client_id', id, (c) => c.notNull())
        .addColumn('present', 'integer', (c) => c.notNull())
        .addColumn('since', text, (c) => c.notNull())
        // Platform timestamp of the last enter or leave: an older event never overrides a newer one.
        .addColumn('changed_ms', millis, (c) => c.notNull())
        .addPrimaryKeyConstraint('presence_pk', ['file_id', 'user_id', 'client_id'])
        .execute();

      await t
        .table(db.schema.createTable('revisions'))
        .addColumn('seq', serial, serialKey)
        .addColumn('file_id', id, (c) => c.notNull())
        .addColumn('revision_id', millis, (c) => c.notNull())
        .addColumn('action', text, (c) => c.notNull())
        .addColumn('user_id', text, (c) => c.notNull())
        .addColumn('title', text)
        .addColumn('label', text)
        .addColumn('doc_history_id', text)
        .addColumn('occurred_at', text, (c) => c.notNull())
        .addColumn('event_id', millis, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('revisions_by_file').on('revisions').columns(['file_id', 'revision_id']).execute();

      await t
        .table(db.schema.createTable('callback_failures'))
        .addColumn('url', t.key(LONG_KEY), (c) => c.notNull())
        .addColumn('status', 'integer', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('last_seen_at', text, (c) => c.notNull())
        .addColumn('last_error', text)
        .addPrimaryKeyConstraint('callback_failures_pk', ['url', 'status'])
        .execute();
    },
  };
}
