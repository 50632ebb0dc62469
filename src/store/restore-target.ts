import { sql, type Kysely, type Transaction } from 'kysely';
import { POSTGRES_TABLES_SQL, postgresBackupTables, quoteTable, SEEDED_TABLES, SQLITE_TABLES_SQL, sqliteBackupTables } from './backup-tables.js';
import type { DialectName } from './dialect.js';
import type { Database } from './schema.js';
import type { StoreRow } from './store-snapshot-shape.js';

/** Bind parameters per INSERT statement, well under SQLite's and PostgreSQL's limits. */
const MAX_PARAMETERS = 10_000;

/** Writes rows back into tables, inside the one transaction of a restore. */
export interface RestoreWriter {
  /** Removes every row of `table` (its seeded rows, or with `--replace` what the store held). */
  clear(table: string): Promise<void>;
  /** Inserts rows as they are, ids included. */
  insert(table: string, rows: readonly StoreRow[]): Promise<void>;
  /** How many rows `table` holds now. */
  count(table: string): Promise<number>;
}

/** The store a backup is restored into. */
export class RestoreTarget {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DialectName,
  ) {}

  /** The tables a backup of this store would carry (the same list on both stores). */
  async tables(): Promise<string[]> {
    if (this.dialect === 'postgres') {
      const { rows } = await sql<{ name: string }>`${sql.raw(POSTGRES_TABLES_SQL)}`.execute(this.db);
      return postgresBackupTables(rows.map((row) => row.name));
    }
    const { rows } = await sql<{ name: string; sql: string | null }>`${sql.raw(SQLITE_TABLES_SQL)}`.execute(this.db);
    return sqliteBackupTables(rows);
  }

  /** The tables among `tables` that hold rows other than those the migrations seed, with their counts. */
  async filledTables(tables: readonly string[]): Promise<Array<{ table: string; rows: number }>> {
    const filled: Array<{ table: string; rows: number }> = [];
    for (const table of tables) {
      if (SEEDED_TABLES.has(table)) continue;
      const rows = await countRows(this.db, table);
      if (rows > 0) filled.push({ table, rows });
    }
    return filled;
  }

  /**
   * Runs `restore` in one transaction: all of the backup is in the store, or (on any error) none of it.
   * On PostgreSQL the id sequences are then moved past the restored ids, so new rows get fresh ones.
   */
  async run(restore: (writer: RestoreWriter) => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await restore({
        clear: async (table) => {
          await sql`DELETE FROM ${sql.raw(quoteTable(table))}`.execute(trx);
        },
        insert: (table, rows) => insertRows(trx, table, rows),
        count: (table) => countRows(trx, table),
      });
      if (this.dialect === 'postgres') await advanceSequences(trx);
    });
  }
}

async function countRows(db: Kysely<Database> | Transaction<Database>, table: string): Promise<number> {
  const { rows } = await sql<{ count: number | string }>`SELECT COUNT(*) AS count FROM ${sql.raw(quoteTable(table))}`.execute(db);
  return Number(rows[0]?.count ?? 0);
}

async function insertRows(trx: Transaction<Database>, table: string, rows: readonly StoreRow[]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Math.max(1, Object.keys(rows[0]!).length);
  const perStatement = Math.max(1, Math.floor(MAX_PARAMETERS / columns));
  for (let start = 0; start < rows.length; start += perStatement) {
    // The table and its columns come from the backup, checked against this store's own tables first.
    await trx
      .insertInto(table as keyof Database)
      .values(rows.slice(start, start + perStatement) as never)
      .execute();
  }
}

/** Sets every serial column's sequence past the largest id its table now holds. */
async function advanceSequences(trx: Transaction<Database>): Promise<void> {
  const { rows } = await sql<{ table: string; column: string }>`
    SELECT table_name AS table, column_name AS column FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`.execute(trx);
  for (const { table, column } of rows) {
    const quoted = `${quoteTable(table)}.${quoteTable(column)}`;
    await sql`SELECT setval(pg_get_serial_sequence(${quoteTable(table)}, ${column}), COALESCE(MAX(${sql.raw(quoted)}), 0) + 1, false) FROM ${sql.raw(quoteTable(table))}`.execute(trx);
  }
}
