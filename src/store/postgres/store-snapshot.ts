import type pg from 'pg';
import { POSTGRES_TABLES_SQL, postgresBackupTables, quoteTable } from '../backup/backup-tables.js';
import type { StoreRow, StoreSnapshot } from '../backup/store-snapshot-shape.js';
import { TAIL_XID_COLUMN } from '../statements/tail-position.js';

/** A row without the transaction id of the tailed tables (migration 150): the restoring transaction's is written instead, and SQLite has none. */
function withoutTailXid(row: StoreRow): StoreRow {
  if (!(TAIL_XID_COLUMN in row)) return row;
  const { [TAIL_XID_COLUMN]: _left, ...rest } = row;
  return rest;
}

/**
 * A snapshot of a PostgreSQL schema: one REPEATABLE READ READ ONLY transaction on a connection of its own
 * (every query in it sees the database as of its first), rows read through a cursor so a large table is
 * never held in memory at once.
 */
export async function openPostgresSnapshot(pool: pg.Pool): Promise<StoreSnapshot> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const tables = postgresBackupTables((await client.query<{ name: string }>(POSTGRES_TABLES_SQL)).rows.map((row) => row.name));
    const migrations = (await client.query<{ name: string }>('SELECT name FROM kysely_migration ORDER BY name')).rows.map((row) => row.name);
    return {
      tables,
      migrations,
      async *rows(table: string, batchSize: number): AsyncIterable<StoreRow[]> {
        await client.query(`DECLARE backup_rows NO SCROLL CURSOR FOR SELECT * FROM ${quoteTable(table)}`);
        try {
          for (;;) {
            const { rows } = await client.query<StoreRow>(`FETCH ${Math.max(1, Math.floor(batchSize))} FROM backup_rows`);
            if (rows.length > 0) yield rows.map(withoutTailXid);
            if (rows.length < batchSize) break;
          }
        } finally {
          await client.query('CLOSE backup_rows');
        }
      },
      async close() {
        try {
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      },
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
    throw error;
  }
}
