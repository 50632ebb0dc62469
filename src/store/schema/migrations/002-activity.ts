import type { Kysely } from 'kysely';

/**
 * Who touched which file when: written by event processing, read by the recent lists of search.
 * kind: open (Collaborator enter), edit (FileContent), comment, discussion, mention (user mentioned
 * related_user_id), revision.
 */
export function activityMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('activity')
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('file_id', 'text')
        .addColumn('related_user_id', 'text')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('occurred_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('activity_by_user').on('activity').columns(['user_id', 'occurred_at']).execute();
      await db.schema.createIndex('activity_by_file').on('activity').columns(['file_id', 'occurred_at']).execute();
    },
  };
}
