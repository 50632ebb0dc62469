import { close, fdatasync, open } from 'node:fs';
import { CompiledQuery, sql, type Kysely, type SqlBool, type Transaction } from 'kysely';
import type { DialectWork } from '../dialect/dialect-work.js';
import type { Database } from '../schema/schema.js';

/** SQLite's safety levels (PRAGMA synchronous). */
const NORMAL = 1;

/**
 * The pragmas, compiled once: they run around every transaction of the event intake and processor,
 * where building each from a template cost more than running it.
 */
const READ_LEVEL = CompiledQuery.raw('PRAGMA synchronous');
const SET_LEVEL = [0, 1, 2, 3].map((level) => CompiledQuery.raw(`PRAGMA synchronous = ${level}`));
const setLevel = (level: number) => SET_LEVEL[level] ?? CompiledQuery.raw(`PRAGMA synchronous = ${Number(level)}`);

/**
 * Runs `work` on one connection at the safety level `level`. The level cannot change inside a
 * transaction, so the connection is held for the pragma, the work and the pragma that puts the level
 * back: no other statement runs on it in between at the changed level.
 */
function atLevel<T>(db: Kysely<Database>, level: number, work: (connection: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.connection().execute(async (connection) => {
    const [current] = (await connection.executeQuery<{ synchronous: number }>(READ_LEVEL)).rows;
    await connection.executeQuery(setLevel(level));
    try {
      return await work(connection);
    } finally {
      await connection.executeQuery(setLevel(Number(current?.synchronous ?? 2)));
    }
  });
}

/** Runs `work` in a transaction committed at the safety level `level` (see `atLevel`). */
function transactionAtLevel<T>(db: Kysely<Database>, level: number, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return atLevel(db, level, (connection) => connection.transaction().execute(work));
}

/**
 * Syncs of the write-ahead log shared by the commits that wait for one (group commit at the disk): a
 * caller waits for a sync that started after its own commit, so at most one sync runs and one more is
 * queued, whatever number of transactions wait for the disk at once.
 */
class WalSync {
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly path: string) {}

  /** Resolves once everything committed before the call is on disk. */
  sync(): Promise<void> {
    if (!this.running) return this.start();
    // A sync in progress may have started before our commit: wait for the next one.
    this.queued ??= this.running.then(
      () => this.start(),
      () => this.start(),
    );
    return this.queued;
  }

  private start(): Promise<void> {
    this.queued = undefined;
    const running = this.datasync().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  /**
   * Opened anew for each sync (the file may be replaced while the store is open), with a bare descriptor:
   * the callback API spares the main thread the FileHandle and its promises, a few per cent of a busy
   * event intake.
   */
  private datasync(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      open(this.path, 'r', (openError, fd) => {
        if (openError) return reject(openError);
        fdatasync(fd, (syncError) => close(fd, (closeError) => ((syncError ?? closeError) ? reject(syncError ?? closeError) : resolve())));
      });
    });
  }
}

/** The write-ahead log's syncer of the database file, or undefined for an in-memory database (nothing to sync). */
const walSyncs = new WeakMap<Kysely<Database>, Promise<WalSync | undefined>>();
function walSyncOf(db: Kysely<Database>): Promise<WalSync | undefined> {
  let syncer = walSyncs.get(db);
  if (!syncer) {
    syncer = sql<{ name: string; file: string }>`PRAGMA database_list`
      .execute(db)
      .then(({ rows }) => rows.find((row) => row.name === 'main')?.file || undefined)
      .then((path) => (path ? new WalSync(`${path}-wal`) : undefined));
    walSyncs.set(db, syncer);
  }
  return syncer;
}

/** SQLite has one writer: a transaction's reads and writes meet no competing worker. */
export const sqliteDialectWork: DialectWork = {
  forUpdate: (query) => query,
  skipLocked: (query) => query,
  lockKeys: async (_trx, keys) => new Set(keys),
  keyLooksFree: () => sql<SqlBool>`1 = 1`,
  keyInLane: () => undefined,
  lanes: 1,
  takeAppendTurn: async () => {},
  takeTailTurn: async () => {},
  transactionWithoutDiskWait: (db, work) => transactionAtLevel(db, NORMAL, work),
  writeWithoutDiskWait: (db, write) => atLevel(db, NORMAL, write),
  /**
   * Committed without a sync (the commit's frames are in the write-ahead log, in the operating system's
   * cache), then the log file is synced on the thread pool before the promise settles: as durable as
   * synchronous=FULL, while the event loop serves requests and the next transactions commit; transactions
   * that commit while a sync runs share the next one (WalSync).
   */
  async durableTransaction(db, work, committed) {
    const syncer = await walSyncOf(db);
    const result = await transactionAtLevel(db, NORMAL, work);
    // Asked for before `committed` lets the next transaction in: this sync covers this commit.
    const synced = syncer?.sync();
    committed?.();
    await synced;
    return result;
  },
};
