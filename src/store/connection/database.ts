import type SQLite from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Pool } from 'mysql2';
import type pg from 'pg';
import type { Connected, DialectName } from '../dialect/dialect.js';
import { DatabaseTooNewError, MigrationRunner } from '../schema/migration-runner.js';
import type { Database } from '../schema/schema.js';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './availability.js';
import type { ConnectOptions } from './connect-options.js';
import { STORE_DIALECTS } from './dialects.js';
import { signallingDialect, WriteSignal } from './write-signal.js';
import type { WalCheckpointer } from '../sqlite/wal-checkpointer.js';

export interface OpenDatabaseOptions extends ConnectOptions {
  /**
   * Apply pending migrations on open (default true). Off, the store opens as it is (`collab-host migrate`
   * applies them; MIGRATE_ON_START=false). A database migrated by a newer version is refused either way.
   */
  migrate?: boolean;
  /** With `migrate: false`: open a database migrated by a newer version too (`collab-host migrate --status` lists it). */
  allowNewer?: boolean;
}

/** An open database with its migrations applied. */
export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: DialectName;
  /**
   * SQLite files only: a second, read-only connection for the hottest lookups (see SqliteHotReads).
   * Absent for PostgreSQL and for `sqlite::memory:` (another connection would see another database).
   */
  sqliteReader?: SQLite.Database;
  /** SQLite files only: Kysely over `sqliteReader`, for the directory's reads (never behind a write transaction). */
  readDb?: Kysely<Database>;
  /** SQLite files only: the thread that checkpoints the write-ahead log. */
  walCheckpointer?: WalCheckpointer;
  /** PostgreSQL only: the pool under Kysely, for named (prepared) statements on the hottest lookups. */
  pgPool?: pg.Pool;
  /** MySQL only: the pool under Kysely (mysql2), for its sizes. */
  mysqlPool?: Pool;
  /** The migrations of this store: status (applied, pending, unknown) and applying what is pending. */
  migrations: MigrationRunner;
  /** Raised by every commit of this process that may have written the directory (src/store/connection/write-signal.ts). */
  writes?: WriteSignal;
  /** Brings the planner's statistics up to date where the database does not keep them by itself (SQLite). */
  keepStatistics(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens `sqlite:PATH`, `sqlite::memory:`, `postgres://…` or `mysql://…` (`mariadb://…`) and applies every pending migration (unless
 * `migrate: false`). A database that cannot be reached is a DatabaseUnavailableError naming it (password
 * redacted) and the reason; one migrated by a newer version a DatabaseTooNewError.
 */
export async function openDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<OpenDatabase> {
  const dialect = STORE_DIALECTS.find((candidate) => candidate.opens(url));
  if (!dialect) throw new DatabaseUnavailableError(url, new Error('no store dialect opens this URL (sqlite:PATH, postgres://…, mysql://…)'));
  let connected: Connected;
  try {
    connected = dialect.connect(url, options);
  } catch (error) {
    throw new DatabaseUnavailableError(url, error);
  }
  const writes = new WriteSignal();
  const db = new Kysely<Database>({ dialect: signallingDialect(connected.kysely, writes) });
  const migrations = new MigrationRunner(db, dialect);
  try {
    if (options.migrate === false) {
      if (!options.allowNewer) await migrations.status().then(refuseNewer);
    } else await migrations.migrateToLatest();
  } catch (error) {
    await db.destroy();
    throw isDatabaseUnavailable(error) ? new DatabaseUnavailableError(url, error) : error;
  }
  const readSide = dialect.openReadSide(url);
  return {
    db,
    dialect: dialect.name,
    ...(connected.pgPool ? { pgPool: connected.pgPool as pg.Pool } : {}),
    ...(connected.mysqlPool ? { mysqlPool: connected.mysqlPool as Pool } : {}),
    ...(readSide ? { sqliteReader: readSide.sqliteReader as SQLite.Database, readDb: readSide.readDb } : {}),
    ...(readSide?.checkpointer ? { walCheckpointer: readSide.checkpointer as WalCheckpointer } : {}),
    migrations,
    writes,
    keepStatistics: () => dialect.keepStatistics(db),
    close: async () => {
      await readSide?.close();
      await db.destroy();
    },
  };
}

function refuseNewer(status: Awaited<ReturnType<MigrationRunner['status']>>): void {
  if (status.unknown.length > 0) throw new DatabaseTooNewError(status.unknown);
}
