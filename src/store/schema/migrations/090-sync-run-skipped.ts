import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/** Entries a sync run left out (src/store/tables/sync.ts): their number and the first of them with reasons. */
export function syncRunSkippedMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('sync_runs')
        .addColumn('skipped', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('sync_runs')
        .addColumn('skipped_entries', t.text, (c) => c.notNull().defaultTo(t.textDefault('[]')))
        .execute();
    },
  };
}
