import type { Kysely } from 'kysely';
import { ID, SHORT, type ColumnTypes } from './column-types.js';

/** The platform client's import/export tasks and the seat task queue (src/store/tables/platform.ts). */
export function platformTasksMigration(t: ColumnTypes) {
  const { serial, serialKey, text } = t;
  const millis = t.bigint;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await t
        .table(db.schema.createTable('platform_tasks'))
        .addColumn('kind', t.key(SHORT), (c) => c.notNull())
        .addColumn('task_id', t.key(ID), (c) => c.notNull())
        .addColumn('file_id', text, (c) => c.notNull())
        .addColumn('user_id', text, (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('format', text)
        .addColumn('status', text, (c) => c.notNull())
        .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('result_file_id', text)
        .addColumn('message', text)
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .addPrimaryKeyConstraint('platform_tasks_pk', ['kind', 'task_id'])
        .execute();

      await t
        .table(db.schema.createTable('platform_seat_tasks'))
        .addColumn('id', serial, serialKey)
        .addColumn('user_id', t.key(ID), (c) => c.notNull())
        .addColumn('action', text, (c) => c.notNull())
        .addColumn('status', t.key(SHORT), (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_ms', millis, (c) => c.notNull())
        .addColumn('claim_token', text)
        .addColumn('last_error', text)
        .addColumn('source', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('done_at', text)
        .execute();
      await db.schema.createIndex('platform_seat_tasks_due').on('platform_seat_tasks').columns(['status', 'next_attempt_ms']).execute();
      await db.schema.createIndex('platform_seat_tasks_by_user').on('platform_seat_tasks').columns(['user_id', 'status']).execute();
    },
  };
}
