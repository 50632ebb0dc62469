import { sql, type Kysely } from 'kysely';
import { postgresBackupTables } from '../backup-tables.js';
import type { Database } from '../schema.js';

/** The feed's counter row (migration 110) belongs to the change feed, which a backup leaves out. */
const FEED_COUNTER = 'directory_changes_seq';

/** The base tables of the database a backup carries: the same set as on the other stores. */
export async function backupTables(db: Kysely<Database>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'`.execute(db);
  return postgresBackupTables(rows.map((row) => row.name).filter((name) => name !== FEED_COUNTER));
}

/** InnoDB moves a table's AUTO_INCREMENT past every id inserted with its value: nothing to do after a restore. */
export async function afterRestore(): Promise<void> {}
