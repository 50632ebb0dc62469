import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import type { Connected, ReadSide } from '../dialect/dialect.js';
import { openReadConnection, readKysely } from './read-connection.js';
import { withStatementCache } from './statement-cache.js';
import { WalCheckpointer } from './wal-checkpointer.js';

const pathOf = (url: string) => url.slice('sqlite:'.length);

/** How long a statement waits for another connection's write lock before SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * Rows of each index read for its statistics (src/store/sqlite/statistics.ts): enough that a column with
 * a few values over a million rows (a grant's principal kind) is seen as far less selective than a file
 * id, at about 0.15 s for the bench company (100,000 people, a million grants) and 0.5 s for a 1 GB file,
 * where reading every row takes 0.6 and 3.4 s.
 */
const ANALYSIS_LIMIT = 50_000;

/** Pages of write-ahead log past which a commit checkpoints on the main thread (160 MB): see `connectSqlite`. */
const FALLBACK_CHECKPOINT_PAGES = 40_000;

/** `sqlite:PATH` (the directory is made) or `sqlite::memory:`. */
export function connectSqlite(url: string): Connected {
  const path = pathOf(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a transaction that returned is on disk, so an acknowledged event survives a power cut.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  sqlite.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
  sqlite.pragma('cache_size = -65536');
  // SQLite's temporary files in memory: a statement changing many rows in a transaction (the event
  // processor's batches, SCIM's writes) spilled its statement journal past 64 KiB to a file made, written
  // page by page and deleted each time, thousands of writes a second on the main thread. Sorts of an
  // index built by a migration or an import are held in memory too (+34 MB at the peak of the bench
  // snapshot's import: docs/scaling.md).
  sqlite.pragma('temp_store = MEMORY');
  // A file's write-ahead log is checkpointed by a thread of its own once the migrations have run
  // (wal-checkpointer.ts, opened with the read side below). SQLite's own checkpoint, run by the commit that
  // crosses this many pages on the main thread, stays as a safety net: far above what a second of writes
  // adds, so it runs only if that thread stopped (or before it starts, in a long migration).
  sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_CHECKPOINT_PAGES}`);
  return { kysely: new SqliteDialect({ database: withStatementCache(sqlite) }) };
}

/**
 * A file's second, read-only connection for the hottest reads, opened after the migrations so that it sees
 * every table they made; none for `:memory:` (another connection would see another database).
 */
export function openSqliteReadSide(url: string): ReadSide | undefined {
  const path = pathOf(url);
  if (path === ':memory:') return undefined;
  const sqliteReader = openReadConnection(path);
  const readDb = readKysely(sqliteReader);
  const checkpointer = new WalCheckpointer(path);
  return {
    sqliteReader,
    readDb,
    checkpointer,
    close: async () => {
      await checkpointer.close();
      await readDb.destroy();
    },
  };
}
