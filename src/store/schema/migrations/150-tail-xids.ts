import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../../dialect/dialect.js';

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
 */
export function tailXidsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'postgres') return;
      for (const { table, seq } of TAILED_TABLES) {
        await sql.raw(`ALTER TABLE ${table} ADD COLUMN tail_xid XID8 NOT NULL DEFAULT pg_current_xact_id()`).execute(db);
        await sql.raw(`CREATE INDEX ${table}_by_tail ON ${table} (tail_xid, ${seq})`).execute(db);
      }
    },
  };
}
