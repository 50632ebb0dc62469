import { Migrator } from 'kysely';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { STORE_DIALECTS } from '../../src/store/connection/dialects.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { columnTypes } from '../../src/store/schema/migrations/column-types.js';
import { allMigrations } from '../../src/store/schema/migrations/index.js';
import { freshStore } from '../ops/fresh-store.js';
import { whileNoSchemaDrops } from './stores.js';

/**
 * A store of its own migrated up to, and not including, the migration named `next` (with `laterToo`, every
 * migration but `next`): as a store released before it, open unmigrated. `migrateAll` applies the rest
 * with the store's own migrations, as an upgrade does, and returns their names; `close` drops the store.
 */
export async function storeBefore(dialect: DialectName, next: string, { laterToo = false } = {}): Promise<OpenDatabase & { migrateAll: () => Promise<string[]> }> {
  const fresh = await freshStore(dialect);
  const store = await fresh.open({ migrate: false });
  const close = async () => {
    await store.close();
    await fresh.drop();
  };
  try {
    // Where the bookkeeping lives and the collation of text keys, as the store's own migrations have them.
    const { schema, binaryCollation } = await STORE_DIALECTS.find((candidate) => candidate.name === dialect)!.migrationSetting(store.db);
    const before = Object.entries(allMigrations(columnTypes(dialect, binaryCollation))).filter(([name]) => (laterToo ? name !== next : name < next));
    const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => Object.fromEntries(before) }, ...(schema ? { migrationTableSchema: schema } : {}) });
    const { error } = await whileNoSchemaDrops(dialect, () => migrator.migrateToLatest());
    if (error) throw error;
  } catch (error) {
    await close();
    throw error;
  }
  return { ...store, close, migrateAll: () => whileNoSchemaDrops(dialect, () => store.migrations.migrateToLatest()) };
}
