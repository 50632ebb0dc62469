import { sql, type Kysely, type Transaction } from 'kysely';
import { POSTGRES_TABLES_SQL, postgresBackupTables, quoteTable } from '../backup/backup-tables.js';
import type { Database } from '../schema/schema.js';

/** The tables of the schema a backup carries. */
export async function backupTables(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`${sql.raw(POSTGRES_TABLES_SQL)}`.execute(db);
  return postgresBackupTables(rows.map((row) => row.name));
}

/** Sets every serial column's sequence past the largest id its table now holds. */
export async function advanceSequences(trx: Transaction<Database>): Promise<void> {
  const { rows } = await sql<{ table: string; column: string }>`
    SELECT table_name AS table, column_name AS column FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`.execute(trx);
  for (const { table, column } of rows) {
    const quoted = `${quoteTable(table)}.${quoteTable(column)}`;
    await sql`SELECT setval(pg_get_serial_sequence(${quoteTable(table)}, ${column}), COALESCE(MAX(${sql.raw(quoted)}), 0) + 1, false) FROM ${sql.raw(quoteTable(table))}`.execute(
      trx,
    );
  }
}
