import { open } from 'node:fs/promises';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DialectWork } from '../dialect-work.js';
import type { Database } from '../schema.js';

/** SQLite's safety levels (PRAGMA synchronous). */
const NORMAL = 1;

/**
 * Runs `work` in a transaction committed at the safety level `level`. The level cannot change inside a
 * transaction, so the connection is held for the pragma, the transaction and the pragma that puts the
 * level back: no other transaction runs on it in between at the changed level.
 */
function transactionAtLevel<T>(db: Kysely<Database>, level: number, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    const [current] = (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(connection)).rows;
    await sql.raw(`PRAGMA synchronous = ${level}`).execute(connection);
    try {
      return await connection.transaction().execute(work);
    } finally {
      await sql.raw(`PRAGMA synchronous = ${Number(current?.synchronous ?? 2)}`).execute(connection);
    }
  });
}

/** The write-ahead log of the database file, or undefined for an in-memory database (nothing to sync). */
const walFiles = new WeakMap<Kysely<Database>, Promise<string | undefined>>();
function walFileOf(db: Kysely<Database>): Promise<string | undefined> {
  let file = walFiles.get(db);
  if (!file) {
    file = sql<{ name: string; file: string }>`PRAGMA database_list`
      .execute(db)
      .then(({ rows }) => rows.find((row) => row.name === 'main')?.file || undefined)
      .then((path) => (path ? `${path}-wal` : undefined));
    walFiles.set(db, file);
  }
  return file;
}

/** SQLite has one writer: a transaction's reads and writes meet no competing worker. */
export const sqliteDialectWork: DialectWork = {
  skipLocked: (query) => query,
  lockKeys: async (_trx, keys) => new Set(keys),
  takeAppendTurn: async () => {},
  transactionWithoutDiskWait: (db, work) => transactionAtLevel(db, NORMAL, work),
  /**
   * Committed without a sync (the commit's frames are in the write-ahead log, in the operating system's
   * cache), then the log file is synced on the thread pool before the promise settles: as durable as
   * synchronous=FULL, while the event loop serves requests and the next batch commits.
   */
  async durableTransaction(db, work) {
    const result = await transactionAtLevel(db, NORMAL, work);
    const wal = await walFileOf(db);
    if (wal !== undefined) {
      const handle = await open(wal, 'r');
      try {
        await handle.datasync();
      } finally {
        await handle.close();
      }
    }
    return result;
  },
};
