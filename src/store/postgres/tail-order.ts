import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { TAIL_SETTLED, TAIL_XID_COLUMN, type Settled, type TailPosition } from '../statements/tail-position.js';

/**
 * PostgreSQL hands sequence numbers out before commit, so a row can commit below one already shown. Rows
 * are ordered by (`tail_xid`, sequence), and each is marked settled when its transaction is older than
 * every transaction still running (`tail_xid < pg_snapshot_xmin(pg_current_snapshot())`): a row that
 * becomes visible later belongs to a transaction that was running (or had not begun), so it sorts after
 * every settled row.
 */
export function inTailOrder<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: string,
  seqColumn: string,
  after: TailPosition | undefined,
): Settled<DB, TB, O> {
  const seq = sql.ref(`${table}.${seqColumn}`);
  const xid = sql.ref(`${table}.${TAIL_XID_COLUMN}`);
  const later = after === undefined ? query : query.where(tailAfter(table, seqColumn, after));
  return later
    .select(sql<unknown>`${xid} < pg_snapshot_xmin(pg_current_snapshot())`.as(TAIL_SETTLED))
    .orderBy(sql`${xid}`)
    .orderBy(sql`${seq}`) as Settled<DB, TB, O>;
}

/** Rows after `position` in tail order: by (`tail_xid`, sequence). */
export function tailAfter(table: string, seqColumn: string, position: TailPosition): RawBuilder<SqlBool> {
  const seq = sql.ref(`${table}.${seqColumn}`);
  const xid = sql.ref(`${table}.${TAIL_XID_COLUMN}`);
  // A position without a transaction id: the one of its row (or of the nearest row below it).
  const afterXid =
    position.xid === null
      ? sql`COALESCE((SELECT ${sql.ref(TAIL_XID_COLUMN)} FROM ${sql.table(table)} WHERE ${sql.ref(seqColumn)} <= ${position.seq} ORDER BY ${sql.ref(seqColumn)} DESC LIMIT 1), '0'::xid8)`
      : sql`${position.xid}::xid8`;
  return sql<SqlBool>`(${xid}, ${seq}) > (${afterXid}, ${position.seq}::bigint)`;
}
