import { sql, type Kysely } from 'kysely';

/**
 * Users can be deactivated (a leaver, a seat given back) without being deleted: their files, grants and
 * history stay, and every read that lists people leaves them out. 1 active, 0 deactivated.
 */
export function usersActiveMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('users')
        .addColumn('active', 'integer', (column) => column.notNull().defaultTo(sql`1`))
        .execute();
    },
  };
}
