import type { Kysely } from 'kysely';

/** Entries a sync run left out (src/store/schema/tables/sync.ts): their number and the first of them with reasons. */
export function syncRunSkippedMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('sync_runs').addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('sync_runs').addColumn('skipped_entries', 'text', (c) => c.notNull().defaultTo('[]')).execute();
    },
  };
}
