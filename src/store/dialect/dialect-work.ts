import type { Expression, Kysely, SelectQueryBuilder, SqlBool, Transaction } from 'kysely';
import type { Database, Db } from '../schema/schema.js';

/**
 * What differs between the dialects in how work meets other workers and the disk.
 * Sharing rows (events to process, deliveries to send, reminders to fire) so that no two workers take
 * the same one: PostgreSQL has several instances, rows locked `FOR UPDATE SKIP LOCKED` and per-key
 * advisory locks held until the transaction ends; SQLite has one process and one writer, so a worker's
 * transaction never meets a competitor and every claim succeeds. Waiting for the disk: see below.
 */
export interface DialectWork {
  /** Makes a select inside a transaction lock its rows until it ends, waiting for rows another holds. */
  forUpdate<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Makes a select inside a transaction lock its rows, passing over rows another worker holds. */
  skipLocked<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /**
   * Takes, for the rest of the transaction, a lock on each key that no other transaction holds; returns
   * the keys taken (work keyed by another is left for it, or for later).
   */
  lockKeys(trx: Db, keys: readonly string[]): Promise<Set<string>>;
  /**
   * A condition, for a read outside any transaction, that is false while another transaction holds the
   * `lockKeys` lock of `key` (a hint: the lock itself is still taken by `lockKeys`). SQLite: always true.
   */
  keyLooksFree(key: Expression<string>): Expression<SqlBool>;
  /**
   * A condition putting the value of `key` in one of `of` lanes (the same key always in the same lane), or
   * undefined when the dialect works in one lane (SQLite: one writer, a synchronous driver).
   */
  keyInLane(key: Expression<string>, lane: number, of: number): Expression<SqlBool> | undefined;
  /** How many lanes of work one process runs side by side (PostgreSQL: several connections' round trips overlap). */
  readonly lanes: number;
  /**
   * Waits for this transaction's turn to append to the event log, held until it ends: the ids its rows
   * take are then above every id already committed, so the log becomes visible in id order and a reader
   * never sees an id while a lower one may still commit (PostgreSQL: an advisory lock shared by every
   * instance; SQLite: its one writer already does this).
   */
  takeAppendTurn(trx: Db): Promise<void>;
  /**
   * The same for the other tables that listings tail by their sequence (so far the audit log's entries
   * written in a transaction): taken just before the insert and held until the transaction ends, so those
   * rows, too, become visible in sequence order and a cursor "after the last one seen" never skips one.
   */
  takeTailTurn(trx: Db): Promise<void>;
  /**
   * A transaction whose commit does not wait for the disk (SQLite: synchronous=NORMAL for it; PostgreSQL:
   * synchronous_commit off): for work that can be done again from durable data, such as effects derived
   * from the event log. Nothing is ever corrupted; a power cut may lose the last such commits, which are
   * then done again. Commits that must be durable (the log itself) keep waiting for the disk.
   */
  transactionWithoutDiskWait<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /**
   * `write` (a statement committed on its own) without waiting for the disk, for rows that may be lost in
   * a crash anyway: SQLite runs it at synchronous=NORMAL (a power cut may lose it, a killed process does
   * not), without a transaction of its own, whose statements would cost about as much CPU as the rows it
   * carries; the other stores run it as it is.
   */
  writeWithoutDiskWait(db: Kysely<Database>, write: (connection: Db) => Promise<void>): Promise<void>;
  /**
   * A transaction that is on disk when the promise settles, without holding the event loop while the
   * disk works (SQLite's driver is synchronous: a commit that syncs stops every request meanwhile). On
   * SQLite the commit is written without a sync and the write-ahead log is then synced on the thread
   * pool; PostgreSQL commits asynchronously already. `committed`, when given, is called once the commit is
   * visible to later transactions, before the wait for the disk (at once after the commit where the
   * commit itself waits): a caller that orders its transactions may start the next one then, and the
   * commits that land meanwhile share one disk sync (group commit). The promise still settles only once
   * this commit is on disk, and a later commit is never on disk before an earlier one.
   */
  durableTransaction<T>(db: Kysely<Database>, work: (trx: Transaction<Database>) => Promise<T>, committed?: () => void): Promise<T>;
}
