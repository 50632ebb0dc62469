import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { isPostgres } from './dialect.js';
import type { Db } from './schema.js';

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

/**
 * Limits and orders a listing of a tailed table (migration 150) so that a reader paging on from its last
 * position never passes a row that commits later.
 *
 * SQLite commits sequence numbers in order (one writer): rows after `after.seq`, by sequence.
 * PostgreSQL hands sequence numbers out before commit, so a row can commit below one already shown. The
 * listing therefore shows only rows of transactions older than every transaction still running
 * (`tail_xid < pg_snapshot_xmin(pg_current_snapshot())`) and orders them by (`tail_xid`, sequence): a
 * row that becomes visible later belongs to a transaction that was running (or had not begun) at the
 * previous read, so its `tail_xid` is above every one shown. A long writing transaction on the server
 * delays the rows after it (never loses them).
 */
export function inTailOrder<DB, TB extends keyof DB, O>(
  db: Db,
  query: SelectQueryBuilder<DB, TB, O>,
  table: string,
  seqColumn: string,
  after: TailPosition | undefined,
): SelectQueryBuilder<DB, TB, O> {
  const seq = sql.ref(`${table}.${seqColumn}`);
  if (!isPostgres(db)) {
    const later = after === undefined ? query : query.where(sql<SqlBool>`${seq} > ${after.seq}`);
    return later.orderBy(sql`${seq}`);
  }
  const xid = sql.ref(`${table}.${TAIL_XID_COLUMN}`);
  let settled = query.where(sql<SqlBool>`${xid} < pg_snapshot_xmin(pg_current_snapshot())`);
  if (after !== undefined) {
    // A cursor without a transaction id: the one of its row (or of the nearest row below it).
    const afterXid =
      after.xid === null
        ? sql`COALESCE((SELECT ${sql.ref(TAIL_XID_COLUMN)} FROM ${sql.table(table)} WHERE ${sql.ref(seqColumn)} <= ${after.seq} ORDER BY ${sql.ref(seqColumn)} DESC LIMIT 1), '0'::xid8)`
        : sql`${after.xid}::xid8`;
    settled = settled.where(sql<SqlBool>`(${xid}, ${seq}) > (${afterXid}, ${after.seq}::bigint)`);
  }
  return settled.orderBy(sql`${xid}`).orderBy(sql`${seq}`);
}

/** The position of a listed row (`row` as selected, with its sequence number `seq`). */
export function tailPositionOf(row: object, seq: number | string | bigint): TailPosition {
  const xid = (row as Record<string, unknown>)[TAIL_XID_COLUMN];
  return { seq: Number(seq), xid: xid === undefined || xid === null ? null : String(xid) };
}
