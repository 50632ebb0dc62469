import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from '../schema/schema.js';
import { withStatementCache } from './statement-cache.js';

/** The page cache of each read connection, in KiB: document opens and searches read all over the directory. */
const READER_CACHE_KIB = 16_384;

/**
 * A read-only connection to an SQLite file (the main thread's prepared reads, each search worker's): in
 * WAL mode it reads the last committed state and never waits for the writer.
 */
export function openReadConnection(path: string): SQLite.Database {
  const reader = new SQLite(path, { readonly: true });
  reader.pragma('busy_timeout = 5000');
  reader.pragma(`cache_size = -${READER_CACHE_KIB}`);
  return reader;
}

/** Kysely over a read connection, for the read side's composed queries (search lists, department facts). */
export function readKysely(reader: SQLite.Database): Kysely<Database> {
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(reader) }) });
}
