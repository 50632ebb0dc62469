import type { Kysely } from 'kysely';
import { ID, NAME, type ColumnTypes } from './column-types.js';

/** Directory sync: runs, sources' state, SCIM resources (src/store/tables/sync.ts). */
export function syncMigration(t: ColumnTypes) {
  const { serial, serialKey, text } = t;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await t
        .table(db.schema.createTable('sync_runs'))
        .addColumn('id', serial, serialKey)
        .addColumn('source', t.key(ID), (c) => c.notNull())
        .addColumn('mode', text, (c) => c.notNull())
        .addColumn('dry_run', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', text, (c) => c.notNull())
        .addColumn('detail', text)
        .addColumn('started_at', text, (c) => c.notNull())
        .addColumn('duration_ms', 'integer')
        .addColumn('created', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('removed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('deactivated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('reactivated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('changes', text, (c) => c.notNull().defaultTo(t.textDefault('{}')))
        .addColumn('errors', text, (c) => c.notNull().defaultTo(t.textDefault('[]')))
        .execute();
      await db.schema.createIndex('sync_runs_by_source').on('sync_runs').columns(['source', 'id']).execute();

      await t
        .table(db.schema.createTable('sync_state'))
        .addColumn('source', t.key(ID), (c) => c.notNull())
        .addColumn('key', t.key(ID), (c) => c.notNull())
        .addColumn('value', text, (c) => c.notNull())
        .addPrimaryKeyConstraint('sync_state_pk', ['source', 'key'])
        .execute();

      // MySQL: (team_id, kind, name_key) must fit an index's 768 characters; kinds are User and Group.
      await t
        .table(db.schema.createTable('scim_resources'))
        .addColumn('kind', t.key(8), (c) => c.notNull())
        .addColumn('id', t.key(ID), (c) => c.notNull())
        .addColumn('team_id', t.key(ID), (c) => c.notNull())
        .addColumn('name_key', t.key(NAME), (c) => c.notNull())
        .addColumn('external_id', t.key(ID))
        .addColumn('attributes', text, (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .addPrimaryKeyConstraint('scim_resources_pk', ['kind', 'id'])
        .execute();
      await db.schema.createIndex('scim_resources_by_name').on('scim_resources').columns(['team_id', 'kind', 'name_key']).unique().execute();
      await db.schema.createIndex('scim_resources_by_external_id').on('scim_resources').columns(['team_id', 'kind', 'external_id']).execute();
    },
  };
}
