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
