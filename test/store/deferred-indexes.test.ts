import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/database.js';
import { withIndexesDeferred } from '../../src/store/deferred-indexes.js';

const indexesOf = async (db: OpenDatabase['db']) =>
  (
    await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('files', 'file_grants') ORDER BY name`.execute(db)
  ).rows.map((row) => row.name);

describe('deferred indexes (SQLite bulk loads)', () => {
  let store: OpenDatabase;
  beforeAll(async () => {
    store = await openDatabase('sqlite::memory:');
  });
  afterAll(async () => {
    await store.close();
  });

  it('drops the secondary indexes during the load and builds the same ones again', async () => {
    const before = await indexesOf(store.db);
    expect(before.length).toBeGreaterThan(0);
    const during = await store.db.transaction().execute((trx) => withIndexesDeferred(trx, 'sqlite', ['files', 'file_grants'], () => indexesOf(trx)));
    expect(during).toEqual([]);
    expect(await indexesOf(store.db)).toEqual(before);
  });

  it('keeps the indexes when the load fails and its transaction rolls back', async () => {
    const before = await indexesOf(store.db);
    await expect(
      store.db.transaction().execute((trx) =>
        withIndexesDeferred(trx, 'sqlite', ['files', 'file_grants'], async () => {
          throw new Error('load failed');
        }),
      ),
    ).rejects.toThrow('load failed');
    expect(await indexesOf(store.db)).toEqual(before);
  });
});
