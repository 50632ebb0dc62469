import { sql, type Kysely } from 'kysely';
import { SQLITE_TABLES_SQL, sqliteBackupTables } from '../backup/backup-tables.js';
import type { Database } from '../schema/schema.js';

/** The tables of the database a backup carries. */
export async function backupTables(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string; sql: string | null }>`${sql.raw(SQLITE_TABLES_SQL)}`.execute(db);
  return sqliteBackupTables(rows);
}
