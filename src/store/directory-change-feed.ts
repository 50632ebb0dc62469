import { sql, type Kysely, type Transaction } from 'kysely';
import { isPostgres } from './dialect.js';
import type { Database } from './schema.js';

/** One entry of the change feed: what changed (see migration 110 for the subjects and their keys). */
export interface FeedChange {
  subject: string;
  key: string;
}

/**
 * Where a reader stands in the feed: every change with an id up to `afterId` has been read, except those of
 * the transactions in `pendingXids` (PostgreSQL: running when the reader last read, so their rows may
 * commit below `afterId`; they are read again until they have ended). SQLite commits ids in order: never pending.
 */
export interface FeedPosition {
  afterId: number;
  pendingXids: readonly string[];
}

/** What one read of the feed found, and where the reader stands after it. */
export interface FeedRead {
  changes: FeedChange[];
  position: FeedPosition;
  /** More than `limit` changes: the caller reloads everything instead (position is then the feed's end). */
  overflow: boolean;
}

/**
 * Runs `work` in one snapshot of the store (PostgreSQL: a REPEATABLE READ transaction; SQLite: a
 * transaction, which reads one state), so a feed read and the rows reloaded for it agree.
 */
export function inSnapshot<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (isPostgres(db)) return db.transaction().setIsolationLevel('repeatable read').execute(work);
  return db.transaction().execute(work);
}

/** The position at the end of the feed as `trx` sees it (a reader that has just loaded everything). */
export async function feedEnd(trx: Transaction<Database>): Promise<FeedPosition> {
  if (!isPostgres(trx)) {
    const row = await trx.selectFrom('directory_changes').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
    return { afterId: Number(row?.id ?? 0), pendingXids: [] };
  }
  const { rows } = await sql<{ id: number | null; running: string[] | null }>`
    SELECT (SELECT MAX(id) FROM directory_changes) AS id,
           ARRAY(SELECT pg_snapshot_xip(pg_current_snapshot())::text) AS running`.execute(trx);
  return { afterId: Number(rows[0]?.id ?? 0), pendingXids: rows[0]?.running ?? [] };
}

/** The changes after `position` that `trx` sees, at most `limit` (more: `overflow`). */
export async function readFeed(trx: Transaction<Database>, position: FeedPosition, limit: number): Promise<FeedRead> {
  if (!isPostgres(trx)) {
    const rows = await trx
      .selectFrom('directory_changes')
      .select(['id', 'subject', 'key'])
      .where('id', '>', position.afterId)
      .orderBy('id')
      .limit(limit + 1)
      .execute();
    if (rows.length > limit) return { changes: [], position: await feedEnd(trx), overflow: true };
    const last = rows.at(-1);
    return { changes: rows.map(({ subject, key }) => ({ subject, key })), position: { afterId: last ? Number(last.id) : position.afterId, pendingXids: [] }, overflow: false };
  }
  const end = await feedEnd(trx);
  const { rows } = await sql<{ id: number; subject: string; key: string }>`
    SELECT id, subject, key FROM directory_changes
     WHERE id > ${position.afterId} OR xid = ANY(${[...position.pendingXids]}::xid8[])
     LIMIT ${limit + 1}`.execute(trx);
  if (rows.length > limit) return { changes: [], position: end, overflow: true };
  // `end` was read in this snapshot: every row above it is invisible here, and the transactions running
  // now (which may still commit rows below it) are the next read's pending ones.
  return { changes: rows.map(({ subject, key }) => ({ subject, key })), position: { afterId: Math.max(end.afterId, position.afterId), pendingXids: end.pendingXids }, overflow: false };
}
