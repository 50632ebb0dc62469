import type { Kysely, Transaction } from 'kysely';
import type { FeedPosition, FeedRead } from './change-feed-position.js';
import { dialectOf } from '../dialect/dialect.js';
import type { Database } from '../schema/schema.js';

export type { FeedChange, FeedPosition, FeedRead } from './change-feed-position.js';

/**
 * Runs `work` in one snapshot of the store (each dialect's `inSnapshot`), so a feed read and the rows
 * reloaded for it agree.
 */
export function inSnapshot<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return dialectOf(db).inSnapshot(db, work);
}

/** The position at the end of the feed as `trx` sees it (a reader that has just loaded everything). */
export function feedEnd(trx: Transaction<Database>): Promise<FeedPosition> {
  return dialectOf(trx).feedEnd(trx);
}

/** The changes after `position` that `trx` sees, at most `limit` (more: `overflow`). */
export function readFeed(trx: Transaction<Database>, position: FeedPosition, limit: number): Promise<FeedRead> {
  return dialectOf(trx).readFeed(trx, position, limit);
}
