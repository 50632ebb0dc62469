import SQLite from 'better-sqlite3';
import { quoteTable, SQLITE_TABLES_SQL, sqliteBackupTables } from '../backup/backup-tables.js';
import type { StoreRow, StoreSnapshot } from '../backup/store-snapshot-shape.js';

/**
 * A snapshot of an SQLite file: its own read-only connection holds one read transaction, and WAL keeps
 * what that transaction sees at the moment of its first read while the service goes on writing.
 */
export function openSqliteSnapshot(path: string): StoreSnapshot {
  const connection = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    connection.pragma('busy_timeout = 5000');
    connection.exec('BEGIN');
    // The first read fixes the moment the transaction sees.
    const tables = sqliteBackupTables(connection.prepare(SQLITE_TABLES_SQL).all() as Array<{ name: string; sql: string | null }>);
    const migrations = (connection.prepare('SELECT name FROM kysely_migration ORDER BY name').all() as Array<{ name: string }>).map((row) => row.name);
    return {
      tables,
      migrations,
      async *rows(table: string, batchSize: number): AsyncIterable<StoreRow[]> {
        let batch: StoreRow[] = [];
        for (const row of connection.prepare(`SELECT * FROM ${quoteTable(table)}`).iterate() as IterableIterator<StoreRow>) {
          batch.push(row);
          if (batch.length >= batchSize) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      },
      async close() {
        if (connection.inTransaction) connection.exec('COMMIT');
        connection.close();
      },
    };
  } catch (error) {
    connection.close();
    throw error;
  }
}
