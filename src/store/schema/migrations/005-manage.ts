import type { Kysely } from 'kysely';

/** The management API's deletes look files up by team (a team with files cannot be deleted). */
export function manageMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('files_by_team').on('files').columns(['team_id']).execute();
    },
  };
}
