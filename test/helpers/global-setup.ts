import pg from 'pg';

/**
 * Runs once before the suite. PostgreSQL tests run when TEST_POSTGRES_URL is set (.ci/run sets it);
 * without it they are skipped, and this says so plainly. pg_trgm is created here, once, because
 * CREATE EXTENSION from parallel test files races.
 */
export default async function setup(): Promise<void> {
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
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    // Schemas left behind by an interrupted earlier run: only those created over an hour ago, so a run
    // never drops the schemas of another run going on beside it.
    const stale = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'ch\\_test\\_%'");
    const hourAgo = Date.now() - 3600_000;
    for (const { nspname } of stale.rows) {
      const createdAt = Number.parseInt(nspname.split('_')[2] ?? '', 36);
      if (Number.isNaN(createdAt) || createdAt < hourAgo) await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    }
  } finally {
    await client.end();
  }
  console.log(`\nPostgreSQL tests: running against ${url.replace(/:[^:@/]*@/, ':***@')}\n`);
}
