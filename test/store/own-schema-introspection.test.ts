import { Kysely, PostgresDialect, PostgresIntrospector, sql } from 'kysely';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { OwnSchemaIntrospector } from '../../src/store/postgres/own-schema-introspector.js';
import { createTestSchema, openTestStore, postgresUrl } from '../helpers/stores.js';

describe.runIf(postgresUrl)('introspection of a PostgreSQL store [postgres]', () => {
  it('lists the tables of the store’s own schema only', async () => {
    const store = await openTestStore('postgres');
    const other = await createTestSchema();
    try {
      await sql`CREATE TABLE ${sql.id(other.schema, 'elsewhere')} (a integer)`.execute(store.db);
      const tables = await store.db.introspection.getTables();
      const names = tables.map((table) => table.name);
      expect(names).toContain('users');
      expect(names).not.toContain('elsewhere');
      expect(names).not.toContain('kysely_migration');
      expect(new Set(tables.map((table) => table.schema)).size).toBe(1);
      expect(tables.find((table) => table.name === 'users')!.columns.map((column) => column.name)).toContain('watermark');
      const withKysely = (await store.db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name);
      expect(withKysely).toEqual(expect.arrayContaining(['kysely_migration', 'kysely_migration_lock']));
      expect((await store.db.introspection.getSchemas()).map((schema) => schema.name)).toEqual([tables[0]!.schema]);
    } finally {
      await other.drop();
      await store.close();
    }
  });

  it('is not failed by a table another client changes in another schema meanwhile', async () => {
    const store = await openTestStore('postgres');
    const other = await createTestSchema();
    const ownSchema = (await store.db.introspection.getSchemas())[0]!.name;
    // A reader whose snapshot predates the other client's change (what a concurrent commit does to a
    // catalog query mid-run, made certain by a repeatable-read transaction).
    const reader = new Kysely<unknown>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: postgresUrl, max: 1, options: `-c search_path=${ownSchema},public` }) }),
    });
    try {
      await sql`CREATE TABLE ${sql.id(other.schema, 'elsewhere')} (a integer, b integer)`.execute(store.db);
      await reader
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          await sql`SELECT 1`.execute(trx);
          await sql`ALTER TABLE ${sql.id(other.schema, 'elsewhere')} DROP COLUMN b`.execute(store.db);
          const tables = await new OwnSchemaIntrospector(trx).getTables({ withInternalKyselyTables: true });
          expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['users', 'kysely_migration']));
          // What the migrator looked with before, over every schema: the other client's change fails it (or,
          // first, a schema another test file dropped meanwhile: a change it is as blind to).
          const catalogChanged = ['42703' /* the dropped column */, '3F000' /* a dropped schema */, '42P01' /* a dropped table */];
          await expect(new PostgresIntrospector(trx).getTables()).rejects.toMatchObject({ code: expect.toBeOneOf(catalogChanged) });
        });
    } finally {
      await reader.destroy();
      await other.drop();
      await store.close();
    }
  });
});
