import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { SqliteDialect } from 'kysely';
import type { Connected, ReadSide } from '../dialect/dialect.js';
import { openReadConnection, readKysely } from './read-connection.js';
import { withStatementCache } from './statement-cache.js';

const pathOf = (url: string) => url.slice('sqlite:'.length);

/** `sqlite:PATH` (the directory is made) or `sqlite::memory:`. */
export function connectSqlite(url: string): Connected {
  const path = pathOf(url);
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a transaction that returned is on disk, so an acknowledged event survives a power cut.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -65536');
  // SQLite's temporary files in memory: a statement changing many rows in a transaction (the event
  // processor's batches, SCIM's writes) spilled its statement journal past 64 KiB to a file made, written
  // page by page and deleted each time, thousands of writes a second on the main thread. Sorts of an
  // index built by a migration or an import are held in memory too (+34 MB at the peak of the bench
  // snapshot's import: docs/scaling.md).
  sqlite.pragma('temp_store = MEMORY');
  // A checkpoint copies each page the write-ahead log holds once, however often it was written since the
  // last: under a stream of small commits (the event intake's, the processor's) SQLite's default of 1,000
  // pages checkpointed the same hot pages many times a second, on the main thread.
  sqlite.pragma('wal_autocheckpoint = 4000');
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
  return { sqliteReader, readDb, close: () => readDb.destroy() };
}
