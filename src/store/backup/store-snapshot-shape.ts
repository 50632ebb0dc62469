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
