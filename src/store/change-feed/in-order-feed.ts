import type { Transaction } from 'kysely';
import type { FeedPosition, FeedRead } from './change-feed-position.js';
import type { Database } from '../schema/schema.js';

/**
 * The change feed of a dialect whose feed ids commit in order (SQLite: one writer; MySQL: ids taken from a
 * counter row held until commit, migration 110): a reader is never behind a lower id still to commit, so
 * nothing is ever pending.
 */
export async function feedEnd(trx: Transaction<Database>): Promise<FeedPosition> {
  const row = await trx
    .selectFrom('directory_changes')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return { afterId: Number(row?.id ?? 0), pendingXids: [] };
}

export async function readFeed(trx: Transaction<Database>, position: FeedPosition, limit: number): Promise<FeedRead> {
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
