import { sql } from 'kysely';
import { FEED_PAUSED } from './ordering.js';
import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

const CLEAR_FEED = new Statement(`DELETE FROM directory_changes`);
// The marker takes the next id of the feed's counter row, as the triggers do (migration 110).
const NEXT_ID = new Statement(`UPDATE directory_changes_seq SET id = id + 1`);
const RELOAD_MARKER = new Statement(`INSERT INTO directory_changes (id, subject, "key") SELECT id, 'all', '' FROM directory_changes_seq`);

/**
 * MySQL: a trigger cannot be switched off inside a transaction (DDL commits), so the feed triggers of
 * migration 110 write nothing while the session's `@collab_feed_paused` is set: set for the rewrite, unset
 * after it whatever happens (the connection goes back to the pool), then the feed is one `all` row.
 */
export async function withFeedAsReload<T>(db: Db, _tables: readonly string[], work: () => Promise<T>): Promise<T> {
  await sql.raw(`SET ${FEED_PAUSED} = 1`).execute(db);
  let result: T;
  try {
    result = await work();
  } finally {
    await sql.raw(`SET ${FEED_PAUSED} = NULL`).execute(db);
  }
  await CLEAR_FEED.run(db, []);
  await NEXT_ID.run(db, []);
  await RELOAD_MARKER.run(db, []);
  return result;
}
