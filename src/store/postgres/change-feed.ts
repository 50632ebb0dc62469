import { sql, type Kysely, type Transaction } from 'kysely';
import type { FeedPosition, FeedRead } from '../change-feed/change-feed-position.js';
import type { Database } from '../schema/schema.js';

/**
 * PostgreSQL: a REPEATABLE READ transaction reads one snapshot. Ids are handed out before commit, so a
 * reader also keeps the transactions running when it read (their rows may still commit below its position).
 */
export function inSnapshot<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').execute(work);
}

export async function feedEnd(trx: Transaction<Database>): Promise<FeedPosition> {
  const { rows } = await sql<{ id: number | null; running: string[] | null }>`
    SELECT (SELECT MAX(id) FROM directory_changes) AS id,
           ARRAY(SELECT pg_snapshot_xip(pg_current_snapshot())::text) AS running`.execute(trx);
  return { afterId: Number(rows[0]?.id ?? 0), pendingXids: rows[0]?.running ?? [] };
}

export async function readFeed(trx: Transaction<Database>, position: FeedPosition, limit: number): Promise<FeedRead> {
  const end = await feedEnd(trx);
  const { rows } = await sql<{ id: number; subject: string; key: string }>`
    SELECT id, subject, key FROM directory_changes
     WHERE id > ${position.afterId} OR xid = ANY(${[...position.pendingXids]}::xid8[])
     LIMIT ${limit + 1}`.execute(trx);
  if (rows.length > limit) return { changes: [], position: end, overflow: true };
  // `end` was read in this snapshot: every row above it is invisible here, and the transactions running
  // now (which may still commit rows below it) are the next read's pending ones.
  return {
    changes: rows.map(({ subject, key }) => ({ subject, key })),
    position: { afterId: Math.max(end.afterId, position.afterId), pendingXids: end.pendingXids },
    overflow: false,
  };
}
