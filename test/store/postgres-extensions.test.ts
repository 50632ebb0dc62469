import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/connection/database.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { postgresUrl, testSchemaName, withAdminClient } from '../helpers/stores.js';

/**
 * A new store on a database of its own, whose extensions the test decides: collab-host uses no
 * PostgreSQL extension, so a new store must migrate whether pg_trgm is absent, present in the schema
 * search path or held by another schema out of it (another application's, an earlier deployment's).
 */
describe.skipIf(!postgresUrl)('a new PostgreSQL store and the extensions of its database', () => {
  const databases: string[] = [];
  const urlOf = (name: string) => {
    const url = new URL(postgresUrl!);
    url.pathname = `/${name}`;
    return url.href;
  };

  /** A new, empty database, without what template1 may hold (dropped after the suite, or by the next run's set-up). */
  async function newDatabase(): Promise<string> {
    const database = testSchemaName();
    await withAdminClient((client) => client.query(`CREATE DATABASE "${database}" TEMPLATE template0`));
    databases.push(database);
    return database;
  }
  afterAll(async () => {
    for (const database of databases) await withAdminClient((client) => client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  });

  /** Opens (migrates) a store in `schema` of `database`, writes the fixture directory and reads a user back. */
  async function migrateAndUse(database: string, schema: string): Promise<string | undefined> {
    await withAdminClient((client) => client.query(`CREATE SCHEMA "${schema}"`), urlOf(database));
    const store = await openDatabase(urlOf(database), { schema, poolSize: 2 });
    try {
      await seedDirectory(store.db);
      await store.db.updateTable('users').set({ name: '张三丰' }).where('id', '=', 'zhang').execute();
      return (await store.db.selectFrom('users').select('name').where('id', '=', 'zhang').executeTakeFirst())?.name;
    } finally {
      await store.close();
    }
  }

  it('migrates where no schema holds pg_trgm, and creates none', async () => {
    const database = await newDatabase();
    expect(await migrateAndUse(database, 'collab')).toBe('张三丰');
    const extensions = await withAdminClient((client) => client.query<{ extname: string }>("SELECT extname FROM pg_extension WHERE extname <> 'plpgsql'"), urlOf(database));
    expect(extensions.rows).toEqual([]);
  });

  it('migrates where pg_trgm lives in another schema, out of the search path', async () => {
    const database = await newDatabase();
    await withAdminClient(async (client) => {
      await client.query('CREATE SCHEMA other_app');
      await client.query('CREATE EXTENSION pg_trgm SCHEMA other_app');
    }, urlOf(database));
    expect(await migrateAndUse(database, 'collab')).toBe('张三丰');
  });
});
