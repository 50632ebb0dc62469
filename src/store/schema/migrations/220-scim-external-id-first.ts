import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * `scim_resources_by_external_id` keyed by the external id first. Keyed `(team_id, kind, external_id)`, it
 * served a lookup by name (`team_id`, `kind`, `name_key`) as well as the unique name index did in the
 * planner's eyes whenever the table had no statistics (never analyzed: a new store, or PostgreSQL with
 * autovacuum off or not yet round), and PostgreSQL then took it and read every resource of the team for
 * each SCIM create: 2 ms a create at 5,000 users, growing with each one an identity provider pushed.
 * Keyed `(external_id, team_id, kind)`, each lookup has one index that fits it, statistics or not.
 */
export function scimExternalIdFirstMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // MySQL commits each DDL statement on its own: one statement, so that no crash leaves the index dropped.
      if (t.dialect === 'mysql') {
        await sql`ALTER TABLE scim_resources DROP INDEX scim_resources_by_external_id, ADD INDEX scim_resources_by_external_id (external_id, team_id, kind)`.execute(db);
        return;
      }
      await db.schema.dropIndex('scim_resources_by_external_id').execute();
      await db.schema.createIndex('scim_resources_by_external_id').on('scim_resources').columns(['external_id', 'team_id', 'kind']).execute();
    },
  };
}
