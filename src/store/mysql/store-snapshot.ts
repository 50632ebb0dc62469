import { sql, type Kysely } from 'kysely';
import { quoteTable } from '../backup/backup-tables.js';
import type { Database } from '../schema/schema.js';
import type { StoreRow, StoreSnapshot } from '../backup/store-snapshot-shape.js';
import { backupTables } from './restore.js';

/**
 * A snapshot of a MySQL database: one REPEATABLE READ transaction WITH CONSISTENT SNAPSHOT, READ ONLY, on
 * a connection held for it (every query in it sees the database as of its start), rows streamed so a
 * large table is never held in memory at once.
 */
export async function openMysqlSnapshot(db: Kysely<Database>): Promise<StoreSnapshot> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let opened!: (connection: Kysely<Database>) => void;
  let failed!: (error: unknown) => void;
  const connection = new Promise<Kysely<Database>>((resolve, reject) => {
    opened = resolve;
    failed = reject;
  });
  const held = db
    .connection()
    .execute(async (conn) => {
      await sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`.execute(conn);
      await sql`START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY`.execute(conn);
      try {
        opened(conn);
        await released;
      } finally {
        await sql`COMMIT`.execute(conn);
      }
    })
    .catch(failed);
  const conn = await connection;
  try {
    const tables = await backupTables(conn);
    const { rows } = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(conn);
    return {
      tables,
      migrations: rows.map((row) => row.name),
      async *rows(table: string, batchSize: number): AsyncIterable<StoreRow[]> {
        const size = Math.max(1, Math.floor(batchSize));
        let batch: StoreRow[] = [];
        const query = sql<StoreRow>`SELECT * FROM ${sql.raw(quoteTable(table))}`.compile(conn);
        for await (const chunk of conn.getExecutor().stream<StoreRow>(query, size)) {
          for (const row of chunk.rows) {
            batch.push(row);
            if (batch.length >= size) {
              yield batch;
              batch = [];
            }
          }
        }
        if (batch.length > 0) yield batch;
      },
      async close() {
        release();
        await held;
      },
    };
  } catch (error) {
    release();
    await held;
    throw error;
  }
}
