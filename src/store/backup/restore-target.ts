import { sql, type Kysely, type Transaction } from 'kysely';
import { quoteTable, SEEDED_TABLES } from './backup-tables.js';
import { dialectOf } from '../dialect/dialect.js';
import { auditIndex } from '../audit/audit-index.js';
import type { Database } from '../schema/schema.js';
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
  constructor(private readonly db: Kysely<Database>) {}

  /** The tables a backup of this store would carry (the same list on every store). */
  tables(): Promise<string[]> {
    return dialectOf(this.db).backupTables(this.db);
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
   * The id generators are then moved past the restored ids (where the dialect needs it), so new rows get fresh ones,
   * and the audit log's indexing by file and actor starts over.
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
      await dialectOf(trx).afterRestore(trx);
      // The audit log's rows now have other transaction ids (PostgreSQL) than when its side tables were
      // filled: indexing starts over, skipping the pairs the backup brought (src/store/audit/audit-index.ts).
      await auditIndex.restart(trx);
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
