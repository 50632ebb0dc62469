import type { SelectQueryBuilder } from 'kysely';
import { dialectOf } from '../dialect/dialect.js';
import { TAIL_XID_COLUMN, type Settled, type TailPosition } from './tail-position.js';
import type { Db } from '../schema/schema.js';

export { TAIL_SETTLED, TAIL_XID_COLUMN, type Settled, type TailPosition } from './tail-position.js';

/**
 * Orders a listing of a tailed table (migration 150) so that a reader paging on from its last cursor never
 * passes a row that commits later; `tailPage` then cuts the page.
 *
 * Each dialect's `inTailOrder` says how (src/store/statements/in-order-tail.ts for SQLite and MySQL, src/store/postgres/tail-order.ts).
 * A cursor is only ever given at a settled row.
 */
export function inTailOrder<DB, TB extends keyof DB, O>(
  db: Db,
  query: SelectQueryBuilder<DB, TB, O>,
  table: string,
  seqColumn: string,
  after: TailPosition | undefined,
): Settled<DB, TB, O> {
  return dialectOf(db).inTailOrder(query, table, seqColumn, after);
}

/**
 * One page of a tailed listing from up to `limit + 1` rows read in tail order. The last page shows every
 * row there is (a write is listed as soon as it commits), with no cursor: a tailer reads on from its
 * previous one. A page with more after it ends at its last settled row, and the cursor points there, so
 * rows of transactions still running come again on the next page rather than being passed; if even its
 * first row is not settled, the page shows what there is with no cursor ("nothing more for now").
 */
export function tailPage<R extends { tail_settled: unknown }>(
  rows: readonly R[],
  limit: number,
  seqOf: (row: R) => number | string | bigint,
): { shown: R[]; next: TailPosition | null } {
  if (rows.length <= limit) return { shown: [...rows], next: null };
  const page = rows.slice(0, limit);
  const unsettled = page.findIndex((row) => !settled(row.tail_settled));
  if (unsettled === 0) return { shown: page, next: null };
  const shown = unsettled === -1 ? page : page.slice(0, unsettled);
  const last = shown.at(-1)!;
  return { shown, next: tailPositionOf(last, seqOf(last)) };
}

/** How long a listing waits at most for rows of running transactions to settle before answering a shorter page. */
const SETTLE_WAIT_MS = 2000;
const SETTLE_POLL_MS = 20;

/**
 * Reads a page with `read` (up to `limit + 1` rows in tail order) and cuts it with `tailPage`. When rows of
 * transactions still running (anywhere on the database server: the snapshot's xmin is the server's) cut the
 * page short while more rows exist, it reads again until they settle, for up to two seconds, so that a
 * client paging to the end is not told "nothing more" only because another writer was busy; past that it
 * answers the shorter page (rows are delayed, never skipped).
 */
export async function readTailPage<R extends { tail_settled: unknown }>(
  read: () => Promise<R[]>,
  limit: number,
  seqOf: (row: R) => number | string | bigint,
): Promise<{ shown: R[]; next: TailPosition | null }> {
  const started = Date.now();
  for (;;) {
    const rows = await read();
    const page = tailPage(rows, limit, seqOf);
    const cutShort = rows.length > limit && (page.next === null || page.shown.length < limit);
    if (!cutShort || Date.now() - started >= SETTLE_WAIT_MS) return page;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
}

/** Whether a listed row's `tail_settled` mark says its transaction no longer runs (each driver spells true its own way). */
export function settled(value: unknown): boolean {
  return value === true || value === 1 || value === 't';
}

/** The position of a listed row (`row` as selected, with its sequence number `seq`). */
export function tailPositionOf(row: object, seq: number | string | bigint): TailPosition {
  const xid = (row as Record<string, unknown>)[TAIL_XID_COLUMN];
  return { seq: Number(seq), xid: xid === undefined || xid === null ? null : String(xid) };
}
