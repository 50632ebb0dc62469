import { sql, type Kysely } from 'kysely';
import { quoteIdentifier } from '../statements/bulk-table.js';
import { BUSY_TIMEOUT_MS } from './open.js';
import type { Database, Db } from '../schema/schema.js';

/** How long the statistics' pass waits for another writer (an import in another process) before it gives up this time. */
const PASS_BUSY_TIMEOUT_MS = 200;

/**
 * SQLite: ANALYZE of `tables` after a bulk load (sampled, as set in src/store/sqlite/open.ts). Without statistics SQLite's planner takes any equality
 * on an indexed column as selective, and read a file's grants through the index of every grant of a
 * principal kind (a third of a million on the bench company): the management API's collaborators of a
 * file took 0.1 s, SCIM's reads of 500 resources 45 ms (bench/README.md, "Imports and statement plans").
 */
export async function refreshStatistics(db: Db, tables: readonly string[]): Promise<void> {
  await inTransaction(db, async (trx) => {
    for (const table of tables) await sql.raw(`ANALYZE ${quoteIdentifier(table)}`).execute(trx);
    await announceStatistics(trx);
  });
}

/**
 * SQLite: analyses the tables never analysed, or grown or shrunk a lot since (`PRAGMA optimize`, sampled: the connection's `analysis_limit`, src/store/sqlite/open.ts), and
 * has every connection to the file load the statistics when they changed. A serving process runs it at
 * start and every hour. Best left undone for a while than waited for: if another process holds the
 * write lock, it gives up after 0.2 s (SQLITE_BUSY) and the next pass tries again.
 */
export async function keepStatistics(db: Db): Promise<void> {
  const before = await statisticsNow(db);
  await sql.raw(`PRAGMA busy_timeout = ${PASS_BUSY_TIMEOUT_MS}`).execute(db);
  try {
    await sql.raw('PRAGMA optimize = 0x10002').execute(db);
    if ((await statisticsNow(db)) !== before) await inTransaction(db, announceStatistics);
  } finally {
    await sql.raw(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`).execute(db);
  }
}

/** The statistics as stored, as one text to compare (tens of rows). */
async function statisticsNow(db: Db): Promise<string> {
  const exists = await sql<{ n: number }>`SELECT count(*) AS n FROM sqlite_schema WHERE name = 'sqlite_stat1'`.execute(db);
  if (Number(exists.rows[0]?.n ?? 0) === 0) return '';
  const rows = await sql<{ s: string | null }>`SELECT group_concat(tbl || ' ' || coalesce(idx, '') || ' ' || stat, char(10)) AS s FROM sqlite_stat1`.execute(db);
  return rows.rows[0]?.s ?? '';
}

/**
 * Makes every connection to the file load the statistics again. A connection loads them with the schema,
 * and only a change of the schema makes it read the schema again; writing `sqlite_stat1` is none (the
 * first ANALYZE, which creates the table, is). An index made and dropped in the same transaction leaves
 * the schema as it was, and changed: other connections (the read-only one, another process's) read it
 * again at their next statement, statistics included.
 */
export async function announceStatistics(trx: Db): Promise<void> {
  await sql.raw('CREATE INDEX statistics_changed ON directory_versions (id)').execute(trx);
  await sql.raw('DROP INDEX statistics_changed').execute(trx);
}

function inTransaction(db: Db, work: (trx: Db) => Promise<void>): Promise<void> {
  return db.isTransaction ? work(db) : (db as Kysely<Database>).transaction().execute(work);
}
