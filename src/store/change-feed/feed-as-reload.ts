import { dialectOf } from '../dialect/dialect.js';
import { FEED_SOURCES } from '../schema/directory-tracking.js';
import type { Db } from '../schema/schema.js';

/** The tables whose writes the change feed records. */
export const FEED_TABLES: readonly string[] = FEED_SOURCES.map((source) => source.table);

/**
 * Runs a rewrite of the whole directory (an import's replace) with the change feed's triggers off, then
 * leaves the feed as one `all` row: every reader reloads its model whole (src/store/change-feed/read-model/), which a
 * rewrite of everything needs anyway, instead of the triggers writing one feed row per key written (on
 * SQLite, a trigger run per row). Run it inside the rewrite's transaction: the triggers are back, and the
 * marker is written, in the same commit; a failed rewrite rolls all of it back.
 */
export async function withFeedAsReload<T>(db: Db, work: () => Promise<T>): Promise<T> {
  return dialectOf(db).withFeedAsReload(db, FEED_TABLES, work);
}
