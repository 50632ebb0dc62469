import type { Kysely } from 'kysely';
import { ID, SHORT, type ColumnTypes } from './column-types.js';

/**
 * Who touched which file when: written by event processing, read by the recent lists of search.
 * kind: open (Collaborator enter), edit (FileContent), comment, discussion, mention (user mentioned
 * related_user_id), revision.
 */
export function activityMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await t
        .table(db.schema.createTable('activity'))
        .addColumn('user_id', t.key(ID), (c) => c.notNull())
        .addColumn('file_id', t.key(ID))
        .addColumn('related_user_id', t.key(ID))
        .addColumn('kind', t.key(SHORT), (c) => c.notNull())
        .addColumn('occurred_at', t.key(SHORT), (c) => c.notNull())
        .execute();
      await db.schema.createIndex('activity_by_user').on('activity').columns(['user_id', 'occurred_at']).execute();
      await db.schema.createIndex('activity_by_file').on('activity').columns(['file_id', 'occurred_at']).execute();
    },
  };
}
