import type { OpenDatabase } from '../connection/database.js';
import { dialectOf } from '../dialect/dialect.js';
import type { StoreSnapshot } from './store-snapshot-shape.js';

export { SnapshotUnsupportedError, type StoreRow, type StoreSnapshot } from './store-snapshot-shape.js';

/** Opens a consistent snapshot of `store` (opened from `url`). */
export function openStoreSnapshot(store: OpenDatabase, url: string): Promise<StoreSnapshot> {
  return dialectOf(store.db).openSnapshot(store, url);
}
