import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';

export const postgresUrl = process.env.TEST_POSTGRES_URL;
export const mysqlUrl = process.env.TEST_MYSQL_URL;

/**
 * The dialects under test: SQLite always, PostgreSQL when TEST_POSTGRES_URL is set, MySQL (MariaDB) when
 * TEST_MYSQL_URL is set.
 */
export const dialects: DialectName[] = ['sqlite', ...(postgresUrl ? (['postgres'] as const) : []), ...(mysqlUrl ? (['mysql'] as const) : [])];

/**
 * A fresh, migrated, empty store: an in-memory SQLite, a new schema of the test PostgreSQL, or a new
 * database on the test MySQL server.
 */
export async function openTestStore(dialect: DialectName): Promise<OpenDatabase> {
  if (dialect === 'sqlite') return openDatabase('sqlite::memory:');
  if (dialect === 'mysql') {
    const { url, drop } = await createTestDatabase();
    const store = await openDatabase(url, { poolSize: 4 }).catch(async (error: unknown) => {
      await drop();
      throw error;
    });
    return {
      ...store,
      async close() {
        await store.close();
        await drop();
      },
    };
  }
  if (!postgresUrl) throw new Error('TEST_POSTGRES_URL is not set');
  const schema = testSchemaName();
  const store = await withSchemaLock('shared', async (client) => {
    await client.query(`CREATE SCHEMA "${schema}"`);
    return openDatabase(postgresUrl, { schema, poolSize: 4 });
  });
  return {
    ...store,
    async close() {
      await store.close();
      await dropSchema(schema);
    },
  };
}

/** A fresh PostgreSQL schema name and URL options, for tests that open several stores on one database. */
export async function createTestSchema(): Promise<{ schema: string; drop: () => Promise<void> }> {
  const schema = testSchemaName();
  await withAdminClient((client) => client.query(`CREATE SCHEMA "${schema}"`));
  return { schema, drop: () => dropSchema(schema) };
}

/**
 * A fresh, empty database on the test MySQL server (utf8mb4, binary collation) and the URL naming it, for
 * tests that open several stores on one database; `drop` removes it.
 */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!mysqlUrl) throw new Error('TEST_MYSQL_URL is not set');
  const database = testSchemaName();
  await withMysqlAdmin((connection) => connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`));
  const url = new URL(mysqlUrl);
  url.pathname = `/${database}`;
  const drop = async () => {
    await withMysqlAdmin((connection) => connection.query(`DROP DATABASE IF EXISTS \`${database}\``));
  };
  return { url: url.toString(), drop };
}

async function withMysqlAdmin<T>(work: (connection: Awaited<ReturnType<typeof createConnection>>) => Promise<T>): Promise<T> {
  const connection = await createConnection(mysqlUrl!.replace(/^mariadb:/, 'mysql:'));
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

/** A test schema's or database's name, `ch_test_<creation time in base 36>_<random>`: the global setup drops only old ones. */
export function testSchemaName(): string {
  return `ch_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

/**
 * Kysely's own PostgreSQL introspector read the catalog of every schema, so a schema another suite dropped
 * meanwhile failed a migration ("schema … does not exist"). The store's introspection reads its own schema
 * only now (src/store/postgres/own-schema-introspector.ts); the lock stays as a cheap guard: opening a test
 * store and `whileNoSchemaDrops` hold it shared (side by side), dropping a schema holds it exclusive.
 */
const SCHEMA_LOCK = 7_307_101;

async function withSchemaLock<T>(mode: 'shared' | 'exclusive', work: (client: pg.Client) => Promise<T>): Promise<T> {
  return withAdminClient(async (client) => {
    await client.query(mode === 'shared' ? 'SELECT pg_advisory_lock_shared($1)' : 'SELECT pg_advisory_lock($1)', [SCHEMA_LOCK]);
    // Ending the admin session (withAdminClient) releases the lock.
    return work(client);
  });
}

/** `work` (migrating, which reads every schema) while no test schema is dropped on PostgreSQL, as opening a test store is. */
export function whileNoSchemaDrops<T>(dialect: DialectName, work: () => Promise<T>): Promise<T> {
  return dialect === 'postgres' ? withSchemaLock('shared', work) : work();
}

async function dropSchema(schema: string): Promise<void> {
  await withSchemaLock('exclusive', (client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
}

/** `work` on a session of its own as the test server's user, on the test database or on `connectionString`'s. */
export async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>, connectionString = postgresUrl): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Runs the same suite once per dialect. The suite gets a function returning its store, which is opened
 * before the suite's first test and closed after its last.
 */
export function describeEachStore(title: string, suite: (store: () => OpenDatabase, dialect: DialectName) => void): void {
  for (const dialect of dialects) {
    describe(`${title} [${dialect}]`, () => {
      let store: OpenDatabase | undefined;
      beforeAll(async () => {
        store = await openTestStore(dialect);
      });
      afterAll(async () => {
        await store?.close();
      });
      suite(() => {
        if (!store) throw new Error('store not open yet');
        return store;
      }, dialect);
    });
  }
}

/**
 * A DATABASE_URL that a command run as a child process can use (a SQLite file in `dir`, a fresh
 * PostgreSQL schema named in the URL's options, or a fresh MySQL database), written by `seed` first, and
 * a way to open it here.
 */
export async function commandDatabase(
  dialect: DialectName,
  dir: string,
  seed: (store: OpenDatabase) => Promise<void>,
): Promise<{ url: string; open: () => Promise<OpenDatabase>; drop: () => Promise<void> }> {
  if (dialect === 'sqlite') {
    const url = `sqlite:${join(dir, `command-${Date.now()}-${randomBytes(3).toString('hex')}.db`)}`;
    const store = await openDatabase(url);
    await seed(store);
    await store.close();
    return { url, open: () => openDatabase(url), drop: async () => {} };
  }
  if (dialect === 'mysql') {
    const { url, drop } = await createTestDatabase();
    const store = await openDatabase(url);
    await seed(store);
    await store.close();
    return { url, open: () => openDatabase(url), drop };
  }
  const { schema, drop } = await createTestSchema();
  const url = `${postgresUrl!}${postgresUrl!.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const store = await openDatabase(postgresUrl!, { schema });
  await seed(store);
  await store.close();
  return { url, open: () => openDatabase(postgresUrl!, { schema }), drop };
}
