import type { RawBuilder, SelectQueryBuilder, SqlBool } from 'kysely';

/**
 * Where a listing that pages "after the last row shown" stands: the last row's sequence number and, on
 * PostgreSQL, the id of the transaction that inserted it (null: not known, as in a cursor given out by SQLite).
 */
export interface TailPosition {
  seq: number;
  xid: string | null;
}

/** The column every tailed table has on PostgreSQL (migration 150). */
export const TAIL_XID_COLUMN = 'tail_xid';

/** Whether a listed row's transaction is older than every transaction still running (always so on SQLite). */
export const TAIL_SETTLED = 'tail_settled';

/** A listing's query with the `tail_settled` mark beside its columns (Kysely's generic selection, said plainly). */
export type Settled<DB, TB extends keyof DB, O> = SelectQueryBuilder<DB, TB, O & { tail_settled: unknown }>;

/** A dialect's ordering of a tailed listing (src/store/statements/tail-order.ts says what it guarantees). */
export type InTailOrder = <DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: string,
  seqColumn: string,
  after: TailPosition | undefined,
) => Settled<DB, TB, O>;

/** A dialect's condition "after `position` in tail order" on a tailed table's rows. */
export type TailAfter = (table: string, seqColumn: string, position: TailPosition) => RawBuilder<SqlBool>;
