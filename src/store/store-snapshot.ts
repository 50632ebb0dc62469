import type { OpenDatabase } from './database.js';
import { openPostgresSnapshot } from './postgres/store-snapshot.js';
import { openSqliteSnapshot } from './sqlite/store-snapshot.js';

/** One row of a table as the driver returns it: numbers, strings, null, and Buffers for bytes. */
export type StoreRow = Record<string, unknown>;

/**
 * A consistent read of the whole store while it keeps serving: every table as of one moment (SQLite: one
 * read transaction on its own connection, which WAL keeps at that moment; PostgreSQL: one REPEATABLE READ
 * READ ONLY transaction). Writes committed before it opened are in it; later ones are not.
 */
export interface StoreSnapshot {
  /** The tables a backup carries (see backup-tables.ts), sorted. */
  readonly tables: readonly string[];
  /** The migrations applied to the store, by name, sorted. */
  readonly migrations: readonly string[];
  /** The rows of `table`, `batchSize` at a time. */
  rows(table: string, batchSize: number): AsyncIterable<StoreRow[]>;
  /** Ends the read. */
  close(): Promise<void>;
}

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
