import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import type { Pool } from 'mysql2';
import pg from 'pg';
import { DatabaseUnavailableError, isDatabaseUnavailable } from './availability.js';
import type { DialectName } from '../dialect/dialect.js';
import './dialects.js';
import { DatabaseTooNewError, MigrationRunner } from '../schema/migration-runner.js';
import { mysqlKyselyDialect } from '../mysql/kysely-dialect.js';
import { createMysqlPool, isMysqlUrl } from '../mysql/pool.js';
import { trackConnection } from '../postgres/copy-rows.js';
import { openReadConnection, readKysely } from '../sqlite/read-connection.js';
import { withStatementCache } from '../sqlite/statement-cache.js';
import type { Database } from '../schema/schema.js';
import { signallingDialect, WriteSignal } from './write-signal.js';

/**
 * COUNT(*) and BIGINT come back from pg as strings by default; every one of ours fits a JS number. Set on
 * our own pool only: a host application's other `pg` clients keep pg's defaults.
 */
const PG_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? (value: string) => Number.parseInt(value, 10) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface OpenDatabaseOptions {
  /** PostgreSQL only: the schema to work in (tests use one fresh schema per suite). */
  schema?: string;
  /** PostgreSQL and MySQL: pool size. */
  poolSize?: number;
  /**
   * Apply pending migrations on open (default true). Off, the store opens as it is (`collab-host migrate`
   * applies them; MIGRATE_ON_START=false). A database migrated by a newer version is refused either way.
   */
  migrate?: boolean;
  /** With `migrate: false`: open a database migrated by a newer version too (`collab-host migrate --status` lists it). */
  allowNewer?: boolean;
  /**
   * PostgreSQL and MySQL: told of an error on an idle pooled connection (the server went away). The pool
   * drops that connection and opens a new one when next needed; without this listener the driver would end
   * the process.
   */
  onConnectionError?: (error: Error) => void;
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
  /** PostgreSQL only: the pool under Kysely, for named (prepared) statements on the hottest lookups. */
  pgPool?: pg.Pool;
  /** MySQL only: the pool under Kysely (mysql2), for its sizes. */
  mysqlPool?: Pool;
  /** The migrations of this store: status (applied, pending, unknown) and applying what is pending. */
  migrations: MigrationRunner;
  /** Raised by every commit of this process that may have written the directory (src/store/connection/write-signal.ts). */
  writes?: WriteSignal;
  close(): Promise<void>;
}

/**
 * Opens `sqlite:PATH`, `sqlite::memory:`, `postgres://…` or `mysql://…` (`mariadb://…`) and applies every pending migration (unless
 * `migrate: false`). A database that cannot be reached is a DatabaseUnavailableError naming it (password
 * redacted) and the reason; one migrated by a newer version a DatabaseTooNewError.
 */
export async function openDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<OpenDatabase> {
  let opened: ReturnType<typeof openSqlite> | ReturnType<typeof openPostgres> | ReturnType<typeof openMysql>;
  try {
    if (url.startsWith('sqlite:')) opened = openSqlite(url.slice('sqlite:'.length));
    else if (isMysqlUrl(url)) opened = openMysql(url, options);
    else opened = openPostgres(url, options);
  } catch (error) {
    throw new DatabaseUnavailableError(url, error);
  }
  const { db, dialect, pgPool, mysqlPool, writes } = opened;
  const migrations = new MigrationRunner(db, dialect);
  try {
    if (options.migrate === false) {
      if (!options.allowNewer) await migrations.status().then(refuseNewer);
    }
    else await migrations.migrateToLatest();
  } catch (error) {
    await db.destroy();
    throw isDatabaseUnavailable(error) ? new DatabaseUnavailableError(url, error) : error;
  }
  const path = url.slice('sqlite:'.length);
  if (mysqlPool) return { db, dialect, mysqlPool, migrations, writes, close: () => db.destroy() };
  if (pgPool) return { db, dialect, pgPool, migrations, writes, close: () => db.destroy() };
  if (path === ':memory:') return { db, dialect, migrations, writes, close: () => db.destroy() };
  // Opened after the migrations, so they see every table the migrations made.
  const sqliteReader = openReadConnection(path);
  const readDb = readKysely(sqliteReader);
  return {
    db,
    dialect,
    sqliteReader,
    migrations,
    readDb,
    writes,
    close: async () => {
      await readDb.destroy();
      await db.destroy();
    },
  };
}

function openSqlite(path: string): { db: Kysely<Database>; dialect: DialectName; pgPool?: undefined; mysqlPool?: undefined; writes: WriteSignal } {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a transaction that returned is on disk, so an acknowledged event survives a power cut.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -65536');
  const writes = new WriteSignal();
  return { db: new Kysely<Database>({ dialect: signallingDialect(new SqliteDialect({ database: withStatementCache(sqlite) }), writes) }), dialect: 'sqlite', writes };
}

function openPostgres(url: string, options: OpenDatabaseOptions): { db: Kysely<Database>; dialect: DialectName; pgPool: pg.Pool; mysqlPool?: undefined; writes: WriteSignal } {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // A request waits at most this long for a connection, then fails (503) instead of hanging while the
    // database is away; keep-alive notices a peer that vanished without closing the connection.
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    types: PG_TYPES,
    // No JIT: its compile time (tens of ms) dwarfs our indexed queries, and the planner's cost estimates of
    // search queries over large tables cross jit_above_cost even when they touch a handful of rows. Set in
    // the start-up packet (a SET queued on 'connect' made pg warn of a query on a busy client).
    options: ['-c jit=off', ...(options.schema ? [`-c search_path=${options.schema},public`] : [])].join(' '),
  });
  pool.on('error', (error) => options.onConnectionError?.(error));
  pool.on('connect', (client) => {
    // A connection cut while checked out (between the queries of a transaction) errors on the client
    // itself: its query fails and the pool discards it, but with no listener pg would end the process.
    client.on('error', (error) => options.onConnectionError?.(error));
  });
  trackConnection(pool);
  const writes = new WriteSignal();
  return { db: new Kysely<Database>({ dialect: signallingDialect(new PostgresDialect({ pool }), writes) }), dialect: 'postgres', pgPool: pool, writes };
}

/**
 * MySQL or MariaDB through mysql2's pool: utf8mb4, UTC, numbers as numbers, and the session of
 * src/store/mysql/pool.ts on every connection; named locks last as long as the transaction
 * (src/store/mysql/named-locks.ts).
 */
function openMysql(url: string, options: OpenDatabaseOptions): { db: Kysely<Database>; dialect: DialectName; pgPool?: undefined; mysqlPool: Pool; writes: WriteSignal } {
  const pool = createMysqlPool(url, options);
  const writes = new WriteSignal();
  return { db: new Kysely<Database>({ dialect: signallingDialect(mysqlKyselyDialect(pool), writes) }), dialect: 'mysql', mysqlPool: pool, writes };
}

function refuseNewer(status: Awaited<ReturnType<MigrationRunner['status']>>): void {
  if (status.unknown.length > 0) throw new DatabaseTooNewError(status.unknown);
}
