import type { CompiledQuery, Dialect, DialectAdapter, Kysely, Transaction } from 'kysely';
import type { ConnectOptions } from '../connection/connect-options.js';
import type { BulkStatementSpec, ConflictSyntax } from '../statements/bulk-table.js';
import type { ConflictForms } from '../statements/conflict-forms.js';
import type { UpdateReturning } from '../statements/update-forms.js';
import type { DialectSql } from './dialect-sql.js';
import type { DialectWork } from './dialect-work.js';
import type { FeedPosition, FeedRead } from '../change-feed/change-feed-position.js';
import type { PreparedReads } from '../statements/prepared-reads.js';
import type { Database, Db } from '../schema/schema.js';
import type { StoreSnapshot } from '../backup/store-snapshot-shape.js';
import type { InTailOrder, TailAfter } from '../statements/tail-position.js';

/** The SQL dialects collab-host runs on (MySQL covers MariaDB). */
export type DialectName = 'sqlite' | 'postgres' | 'mysql';

/** The connections a store was opened with, as the dialect that opened them knows them. */
export interface OpenedConnections {
  readonly db: Kysely<Database>;
  /** PostgreSQL's pool (node-postgres), for COPY, prepared reads and LISTEN. */
  readonly pgPool?: unknown;
  /** SQLite's read-only connection to a file (better-sqlite3), for prepared reads. */
  readonly sqliteReader?: unknown;
  /** MySQL's pool (mysql2), for its sizes. */
  readonly mysqlPool?: unknown;
}

/** A dialect's connections for a URL, before Kysely is made over them (src/store/connection/database.ts). */
export interface Connected {
  /** Kysely's dialect over the driver. */
  readonly kysely: Dialect;
  readonly pgPool?: unknown;
  readonly mysqlPool?: unknown;
}

/** Connections a dialect opens once the migrations have run (SQLite's read-only connection to a file). */
export interface ReadSide {
  readonly sqliteReader: unknown;
  /** Kysely over the read connection, for the directory's reads (never behind a write transaction). */
  readonly readDb: Kysely<Database>;
  /** SQLite: the thread that checkpoints the file's write-ahead log (src/store/sqlite/wal-checkpointer.ts). */
  readonly checkpointer?: unknown;
  close(): Promise<void>;
}

/** See `StoreDialect.migrationSetting`. */
export interface MigrationSetting {
  schema?: string;
  binaryCollation?: string;
}

/** A file's content version as an event reports it. */
export interface FileVersionRow {
  fileId: string;
  version: number;
  updatedAt: string;
}

/** A connection pool's sizes (undefined for a store with one connection). */
export interface PoolSizes {
  max: number;
  total: number;
  idle: number;
  /** Requests waiting for a connection. */
  waiting: number;
}

/**
 * Everything that differs between the databases collab-host runs on, in one place: each of
 * src/store/sqlite/, src/store/postgres/ and src/store/mysql/ exports one implementation,
 * and nothing outside those folders asks which database it talks to. A new dialect implements every
 * member (the compiler lists what is missing), adds its folder, registers in src/store/connection/dialects.ts and joins
 * the test matrix (test/helpers/stores.ts).
 */
export interface StoreDialect {
  readonly name: DialectName;
  /** Whether this dialect's Kysely adapter is `adapter` (how a Kysely instance or transaction is recognised). */
  owns(adapter: DialectAdapter): boolean;

  // Opening
  /** Whether this dialect opens `url` (by its scheme). */
  opens(url: string): boolean;
  /** Opens the driver's connections (and pool) for `url`, with the session settings the store relies on. */
  connect(url: string, options: ConnectOptions): Connected;
  /** Opens what needs the migrated tables, once they are (undefined: nothing). */
  openReadSide(url: string): ReadSide | undefined;
  /**
   * What the migrations need to know of the database (src/store/schema/migration-runner.ts): the schema
   * their bookkeeping lives in (PostgreSQL), the binary collation text keys take (MySQL).
   */
  migrationSetting(db: Kysely<Database>): Promise<MigrationSetting>;
  /** Holds what one `serve` on `url` must hold alone (SQLite: the file); returns the release. */
  holdServeLock(url: string): () => void;

  // Statements
  /** How hand-written statements (src/store/statements/statement.ts) bind: `$n` as written, or `?` by position. */
  readonly placeholders: 'numbered' | 'positional';
  /** The SQL pieces of the read side (id lists). */
  readonly sql: DialectSql;
  /** Prepared reads for every request, when the dialect has a faster path than Kysely (else undefined). */
  preparedReads(opened: OpenedConnections): PreparedReads | undefined;

  // Work shared between workers and instances, and waiting for the disk
  readonly work: DialectWork;
  /**
   * Whether the driver runs statements on the event loop (SQLite's is synchronous): long writes that may
   * wait are then cut into chunks with other work in between.
   */
  readonly blocksEventLoop: boolean;
  /** Locks due seat tasks for this transaction and returns their ids (src/store/platform/seat-tasks.ts). */
  lockDueSeatTasks(trx: Db, nowMs: number, limit: number): Promise<number[]>;
  /** Takes the directory's write lock for the rest of the transaction (every instance and process). */
  lockDirectoryWrites(trx: Db): Promise<void>;

  // Bulk writes
  /** One multi-row insert of `rows`, followed by `tail` (a conflict clause, RETURNING …). */
  bulkInsertStatement(spec: BulkStatementSpec, rows: readonly (readonly unknown[])[], tail: string): CompiledQuery;
  /** An update that returns the rows it changed (src/store/statements/update-forms.ts). */
  readonly updateReturning: UpdateReturning;
  /** Kysely inserts that may meet a row already there: keep it, or update it (src/store/statements/conflict-forms.ts). */
  readonly conflicts: ConflictForms;
  /** The syntax of this dialect's conflict clauses (src/store/statements/bulk-table.ts). */
  readonly conflictSyntax: ConflictSyntax;
  /** The tail making `bulkInsertStatement` an upsert on `conflictKey`: every other column takes the new row's value (none: the row is left). */
  upsertTail(columns: readonly string[], conflictKey: readonly string[]): string;
  /** One multi-row insert that skips rows meeting a unique key and returns `returning` of the rows it inserted. */
  insertNewStatement(spec: BulkStatementSpec, rows: readonly (readonly unknown[])[], returning: readonly string[]): CompiledQuery;
  /** A faster path for a large plain insert (PostgreSQL's COPY); false when not taken (then `bulkInsertStatement`). */
  bulkLoad(db: Db, spec: BulkStatementSpec, rows: readonly (readonly unknown[])[]): Promise<boolean>;
  /** Runs a bulk load with secondary indexes built once at the end where the dialect can (src/store/statements/deferred-indexes.ts). */
  withIndexesDeferred<T>(db: Db, tables: readonly string[], work: () => Promise<T>, options: { nothingToRead: boolean }): Promise<T>;
  /** Refreshes the planner's statistics of `tables` after a bulk load. */
  refreshStatistics(db: Db, tables: readonly string[]): Promise<void>;
  /** Brings the planner's statistics up to date where the database does not by itself (a serving process, at start and every hour). */
  keepStatistics(db: Db): Promise<void>;
  /** Sets each file's version and update time to the given ones when newer (one statement for the batch). */
  advanceFileVersions(db: Db, rows: readonly FileVersionRow[]): Promise<void>;

  // The directory's change feed (src/store/change-feed/directory-change-feed.ts)
  /** Runs `work` in a transaction that reads one state of the store. */
  inSnapshot<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /** The position at the end of the feed as `trx` sees it. */
  feedEnd(trx: Transaction<Database>): Promise<FeedPosition>;
  /** The changes after `position` that `trx` sees, at most `limit` (more: overflow). */
  readFeed(trx: Transaction<Database>, position: FeedPosition, limit: number): Promise<FeedRead>;
  /** Runs a rewrite of the whole directory with the feed's triggers off, leaving one `all` row. */
  withFeedAsReload<T>(db: Db, tables: readonly string[], work: () => Promise<T>): Promise<T>;
  /**
   * Wakes `wake` when another connection commits a directory write, if the dialect can push that
   * (PostgreSQL's LISTEN); returns the stop, or undefined when readers only poll.
   */
  listenForDirectoryChanges(opened: OpenedConnections, wake: () => void, onError: (error: unknown) => void): (() => Promise<void>) | undefined;

  // Tailed listings (src/store/statements/tail-order.ts)
  /** Orders a listing of a tailed table so that a reader paging on never passes a row that commits later. */
  readonly inTailOrder: InTailOrder;
  /** The condition `inTailOrder` pages by: rows after a position in tail order. */
  readonly tailAfter: TailAfter;

  // Backups and operations
  /** A consistent snapshot of the store for a backup taken beside the running service. */
  openSnapshot(opened: OpenedConnections, url: string): Promise<StoreSnapshot>;
  /** The names of the tables a backup carries (src/store/backup/backup-tables.ts). */
  backupTables(db: Kysely<Database>): Promise<string[]>;
  /** After a restore wrote rows with their ids: moves id generators past them. */
  afterRestore(trx: Transaction<Database>): Promise<void>;
  /** The pool's sizes, for metrics; undefined with a single connection. */
  poolSizes(opened: OpenedConnections): PoolSizes | undefined;
}

const known: StoreDialect[] = [];
const byAdapter = new WeakMap<DialectAdapter, StoreDialect>();

/** Makes a dialect known (src/store/connection/dialects.ts registers every one the store opens with). */
export function registerDialect(dialect: StoreDialect): void {
  if (!known.includes(dialect)) known.push(dialect);
}

/** The dialect of the database a Kysely instance or transaction talks to. */
export function dialectOf(db: Kysely<Database> | Db): StoreDialect {
  const adapter = db.getExecutor().adapter;
  let dialect = byAdapter.get(adapter);
  if (!dialect) {
    dialect = known.find((candidate) => candidate.owns(adapter));
    if (!dialect) throw new Error(`no store dialect is registered for the Kysely adapter ${adapter.constructor.name} (import src/store/connection/dialects.ts)`);
    byAdapter.set(adapter, dialect);
  }
  return dialect;
}
