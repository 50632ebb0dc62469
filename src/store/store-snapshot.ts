import type { OpenDatabase } from './database.js';
import type { StoreSnapshot } from './store-snapshot-shape.js';
import { openPostgresSnapshot } from './postgres/store-snapshot.js';
import { openSqliteSnapshot } from './sqlite/store-snapshot.js';

export type { StoreRow, StoreSnapshot } from './store-snapshot-shape.js';

/** Thrown when the store cannot be read as one consistent snapshot (`sqlite::memory:`). */
export class SnapshotUnsupportedError extends Error {
  override name = 'SnapshotUnsupportedError';
}

/** Opens a consistent snapshot of `store` (opened from `url`). */
export async function openStoreSnapshot(store: OpenDatabase, url: string): Promise<StoreSnapshot> {
  if (store.pgPool) return openPostgresSnapshot(store.pgPool);
  const path = url.slice('sqlite:'.length);
  if (path === ':memory:') throw new SnapshotUnsupportedError('an in-memory SQLite store (sqlite::memory:) cannot be backed up from another process');
  return openSqliteSnapshot(path);
}
