import { sql, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { TAIL_SETTLED, type Settled, type TailPosition } from './tail-position.js';

/**
 * Tail order for a dialect that commits sequence numbers in order (SQLite: one writer; MySQL: a turn row
 * held until commit, migration 150): rows after `after.seq`, by sequence, all settled.
 */
export function inTailOrder<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  table: string,
  seqColumn: string,
  after: TailPosition | undefined,
): Settled<DB, TB, O> {
  const seq = sql.ref(`${table}.${seqColumn}`);
  const later = after === undefined ? query : query.where(tailAfter(table, seqColumn, after));
  return later.select(sql<unknown>`1`.as(TAIL_SETTLED)).orderBy(sql`${seq}`) as Settled<DB, TB, O>;
}

/** Rows after `position` in tail order (here: by sequence). */
export function tailAfter(table: string, seqColumn: string, position: TailPosition): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(`${table}.${seqColumn}`)} > ${position.seq}`;
}
