import type { Kysely } from 'kysely';
import type { DialectName } from '../../dialect/dialect.js';

/** Directory sync: runs, sources' state, SCIM resources (src/store/schema/tables/sync.ts). */
export function syncMigration(dialect: DialectName) {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('sync_runs')
        .addColumn('id', serial, (c) => c.primaryKey())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('mode', 'text', (c) => c.notNull())
        .addColumn('dry_run', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('detail', 'text')
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('duration_ms', 'integer')
        .addColumn('created', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('removed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('deactivated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('reactivated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('changes', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('errors', 'text', (c) => c.notNull().defaultTo('[]'))
        .execute();
      await db.schema.createIndex('sync_runs_by_source').on('sync_runs').columns(['source', 'id']).execute();

      await db.schema
        .createTable('sync_state')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('value', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('sync_state_pk', ['source', 'key'])
        .execute();

      await db.schema
        .createTable('scim_resources')
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('team_id', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('external_id', 'text')
        .addColumn('attributes', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('scim_resources_pk', ['kind', 'id'])
        .execute();
      await db.schema.createIndex('scim_resources_by_name').on('scim_resources').columns(['team_id', 'kind', 'name_key']).unique().execute();
      await db.schema.createIndex('scim_resources_by_external_id').on('scim_resources').columns(['team_id', 'kind', 'external_id']).execute();
    },
  };
}
