import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/database.js';
import type { DialectName } from '../../src/store/dialect.js';

export const postgresUrl = process.env.TEST_POSTGRES_URL;

/** The dialects under test: SQLite always, PostgreSQL when TEST_POSTGRES_URL is set. */
export const dialects: DialectName[] = postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];

/** A fresh, migrated, empty store: an in-memory SQLite, or a new schema of the test PostgreSQL. */
export async function openTestStore(dialect: DialectName): Promise<OpenDatabase> {
  if (dialect === 'sqlite') return openDatabase('sqlite::memory:');
  if (!postgresUrl) throw new Error('TEST_POSTGRES_URL is not set');
  const schema = testSchemaName();
  await withAdminClient((client) => client.query(`CREATE SCHEMA "${schema}"`));
  const store = await openDatabase(postgresUrl, { schema, poolSize: 4 });
  return {
    ...store,
    async close() {
      await store.close();
      await withAdminClient((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    },
  };
}

/** A fresh PostgreSQL schema name and URL options, for tests that open several stores on one database. */
export async function createTestSchema(): Promise<{ schema: string; drop: () => Promise<void> }> {
  const schema = testSchemaName();
  await withAdminClient((client) => client.query(`CREATE SCHEMA "${schema}"`));
  return { schema, drop: () => withAdminClient((client) => client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)).then(() => undefined) };
}

/** `ch_test_<creation time in base 36>_<random>`: the global setup drops only old ones. */
function testSchemaName(): string {
  return `ch_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

async function withAdminClient<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresUrl });
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
