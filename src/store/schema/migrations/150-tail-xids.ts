import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/** The tables whose listings page "after the last row shown" by a sequence (src/store/statements/tail-order.ts). */
export const TAILED_TABLES: ReadonlyArray<{ table: string; seq: string }> = [
  { table: 'notifications', seq: 'seq' },
  { table: 'reminders', seq: 'seq' },
  { table: 'audit_log', seq: 'id' },
];

/**
 * PostgreSQL only: each row of a tailed table holds the id of the transaction that inserted it
 * (`tail_xid`), so that a listing can show only rows of transactions that no longer run and order them by
 * (`tail_xid`, sequence); a row that commits late then comes after every row already shown, never below
 * a cursor. Rows already there take the migration's transaction id (ordered among themselves by sequence).
 * SQLite commits its sequences in order (one writer) and needs nothing.
 *
 * MySQL has no transaction id a column can hold: there the sequences are made to commit in order. A
 * BEFORE INSERT trigger on each tailed table raises the one row of `tail_turns` (MySQL numbers the row
 * after its BEFORE triggers), and the writing transaction holds that row until it ends: a second
 * transaction inserting into a tailed table waits for the first to commit, so no sequence number commits
 * below one already visible. One row for every tailed table, so no two such writers wait on each other
 * in opposite orders; the tail turn of the dialect (src/store/mysql/dialect-work.ts) is the same row.
 */
export const MYSQL_TAIL_TURN = 'UPDATE tail_turns SET n = n + 1 WHERE id = 1';

export function tailXidsMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (t.dialect === 'mysql') {
        await t
          .table(db.schema.createTable('tail_turns'))
          .addColumn('id', 'integer', (c) => c.primaryKey())
          .addColumn('n', 'bigint', (c) => c.notNull())
          .execute();
        await sql`INSERT INTO tail_turns (id, n) VALUES (1, 0)`.execute(db);
        for (const { table } of TAILED_TABLES) {
          await sql.raw(`CREATE TRIGGER ${table}_tail_turn BEFORE INSERT ON ${table} FOR EACH ROW ${MYSQL_TAIL_TURN}`).execute(db);
        }
        return;
      }
      if (t.dialect !== 'postgres') return;
      for (const { table, seq } of TAILED_TABLES) {
        await sql.raw(`ALTER TABLE ${table} ADD COLUMN tail_xid XID8 NOT NULL DEFAULT pg_current_xact_id()`).execute(db);
        await sql.raw(`CREATE INDEX ${table}_by_tail ON ${table} (tail_xid, ${seq})`).execute(db);
      }
    },
  };
}
