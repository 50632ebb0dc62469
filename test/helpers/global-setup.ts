import type { RowDataPacket } from 'mysql2';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';

/**
 * Runs once before the suite. PostgreSQL tests run when TEST_POSTGRES_URL is set, MySQL (MariaDB) tests
 * when TEST_MYSQL_URL is set (.ci/run sets both); without one they are skipped, and this says so plainly.
 */
export default async function setup(): Promise<void> {
  await setupPostgres();
  await setupMysql();
}

/** Test schemas and databases are named `ch_test_<creation time in base 36>_<random>`: older than an hour is stale. */
function isStale(name: string): boolean {
  const createdAt = Number.parseInt(name.split('_')[2] ?? '', 36);
  return Number.isNaN(createdAt) || createdAt < Date.now() - 3600_000;
}

/** Checks that PostgreSQL answers and drops the schemas and databases an interrupted earlier run left. */
async function setupPostgres(): Promise<void> {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) {
    console.log('\n*** PostgreSQL tests SKIPPED: TEST_POSTGRES_URL is not set (for example postgres://postgres@127.0.0.1:5432/test) ***\n');
    return;
  }
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`TEST_POSTGRES_URL is set but PostgreSQL is not reachable: ${(error as Error).message}`);
  }
  try {
    // Schemas left behind by an interrupted earlier run: only those created over an hour ago, so a run
    // never drops the schemas of another run going on beside it.
    const stale = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'ch\\_test\\_%'");
    for (const { nspname } of stale.rows) {
      if (isStale(nspname)) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    }
    const staleDatabases = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'ch\\_test\\_%'");
    for (const { datname } of staleDatabases.rows) {
      if (isStale(datname)) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
  } finally {
    await client.end();
  }
  console.log(`\nPostgreSQL tests: running against ${url.replace(/:[^:@/]*@/, ':***@')}\n`);
}

/** Every MySQL test store is a database of its own (test/helpers/stores.ts): those an interrupted run left behind go. */
async function setupMysql(): Promise<void> {
  const url = process.env.TEST_MYSQL_URL;
  if (!url) {
    console.log('\n*** MySQL tests SKIPPED: TEST_MYSQL_URL is not set (for example mysql://collab:collab-test@127.0.0.1:3306/collab_test) ***\n');
    return;
  }
  let connection: Awaited<ReturnType<typeof createConnection>>;
  try {
    connection = await createConnection(url.replace(/^mariadb:/, 'mysql:'));
  } catch (error) {
    throw new Error(`TEST_MYSQL_URL is set but MySQL is not reachable: ${(error as Error).message}`);
  }
  try {
    const [rows] = await connection.query<Array<{ name: string } & RowDataPacket>>(
      "SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE 'ch\\_test\\_%'",
    );
    for (const { name } of rows) {
      if (isStale(name)) await connection.query(`DROP DATABASE IF EXISTS \`${name}\``);
    }
  } finally {
    await connection.end();
  }
  console.log(`\nMySQL tests: running against ${url.replace(/:[^:@/]*@/, ':***@')}\n`);
}
