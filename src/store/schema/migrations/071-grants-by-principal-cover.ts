import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * A principal's files with their role, read from the index alone: search keeps each principal's granted
 * files in memory (src/store/search/readable-files.ts) and loads a team's (ten thousand grants at the
 * benchmark's scale) in a few milliseconds instead of one table row per grant. The index of 001 on
 * (principal_kind, principal_id, file_id) is a prefix of this one and goes.
 */
export function grantsByPrincipalCoverMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('file_grants_by_principal_rank').on('file_grants').columns(['principal_kind', 'principal_id', 'file_id', 'role_rank']).execute();
      if (t.dialect === 'mysql') await db.schema.dropIndex('file_grants_by_principal').on('file_grants').execute();
      else await sql`DROP INDEX file_grants_by_principal`.execute(db);
    },
  };
}
