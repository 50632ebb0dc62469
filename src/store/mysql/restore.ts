import { sql, type Kysely } from 'kysely';
import { postgresBackupTables } from '../backup/backup-tables.js';
import type { Database } from '../schema/schema.js';

/** MySQL's own ordering rows: the feed's counter (migration 110, the feed is left out) and the tail turn (150). */
const ORDERING_TABLES = new Set(['directory_changes_seq', 'tail_turns']);

/** The base tables of the database a backup carries: the same set as on the other stores. */
export async function backupTables(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'`.execute(db);
  return postgresBackupTables(rows.map((row) => row.name).filter((name) => !ORDERING_TABLES.has(name)));
}

/** InnoDB moves a table's AUTO_INCREMENT past every id inserted with its value: nothing to do after a restore. */
export async function afterRestore(): Promise<void> {}
