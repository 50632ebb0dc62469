import { sql } from 'kysely';
import { expect, it } from 'vitest';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { withIndexesDeferred } from '../../src/store/statements/deferred-indexes.js';
import type { Db } from '../../src/store/schema/schema.js';
import { describeEachStore } from '../helpers/stores.js';

/** The secondary indexes of files and file_grants, as the database lists them. */
async function indexesOf(db: Db, dialect: DialectName): Promise<string[]> {
  const query = {
    sqlite: sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('files', 'file_grants') ORDER BY name`,
    postgres: sql<{
      name: string;
    }>`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('files', 'file_grants') AND indexdef NOT LIKE 'CREATE UNIQUE%' ORDER BY indexname`,
    mysql: sql<{
      name: string;
    }>`SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name IN ('files', 'file_grants') AND non_unique = 1 ORDER BY index_name`,
  }[dialect];
  return (await query.execute(db)).rows.map((row) => row.name);
}

describeEachStore('deferred indexes (bulk loads)', (store, dialect) => {
  it('builds the secondary indexes after the load on SQLite, and keeps them (readers need them) on PostgreSQL', async () => {
    const before = await indexesOf(store().db, dialect);
    expect(before.length).toBeGreaterThan(0);
    const during = await store()
      .db.transaction()
      .execute((trx) => withIndexesDeferred(trx, ['files', 'file_grants'], () => indexesOf(trx, dialect), { nothingToRead: false }));
    expect(during).toEqual(dialect === 'sqlite' ? [] : before);
    expect(await indexesOf(store().db, dialect)).toEqual(before);
  });

  it('builds them after the load on SQLite and PostgreSQL when the tables held nothing anyone could read (a first import); MySQL keeps them (DDL would commit the load)', async () => {
    const before = await indexesOf(store().db, dialect);
    const during = await store()
      .db.transaction()
      .execute((trx) => withIndexesDeferred(trx, ['files', 'file_grants'], () => indexesOf(trx, dialect), { nothingToRead: true }));
    expect(during).toEqual(dialect === 'mysql' ? before : []);
    expect(await indexesOf(store().db, dialect)).toEqual(before);
  });

  it('keeps the indexes when the load fails and its transaction rolls back', async () => {
    const before = await indexesOf(store().db, dialect);
    await expect(
      store()
        .db.transaction()
        .execute((trx) =>
          withIndexesDeferred(
            trx,
            ['files', 'file_grants'],
            async () => {
              throw new Error('load failed');
            },
            { nothingToRead: true },
          ),
        ),
    ).rejects.toThrow('load failed');
    expect(await indexesOf(store().db, dialect)).toEqual(before);
  });
});
