import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DialectName } from './dialect.js';
import { allMigrations } from './migrations/index.js';
import { withStatementCache } from './statement-cache.js';
import type { Database } from './schema.js';

// COUNT(*) and BIGINT come back from pg as strings by default; every one of ours fits a JS number.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));

export interface OpenDatabaseOptions {
  /** PostgreSQL only: the schema to work in (tests use one fresh schema per suite). */
  schema?: string;
  /** PostgreSQL only: pool size. */
  poolSize?: number;
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
  /** PostgreSQL only: the pool under Kysely, for named (prepared) statements on the hottest lookups. */
  pgPool?: pg.Pool;
  close(): Promise<void>;
}

/** Opens `sqlite:PATH`, `sqlite::memory:` or `postgres://…` and applies every pending migration. */
export async function openDatabase(url: string, options: OpenDatabaseOptions = {}): Promise<OpenDatabase> {
  const { db, dialect, pgPool } = url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length)) : openPostgres(url, options);
  try {
    await migrate(db, dialect);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const path = url.slice('sqlite:'.length);
  if (pgPool) return { db, dialect, pgPool, close: () => db.destroy() };
  if (path === ':memory:') return { db, dialect, close: () => db.destroy() };
  // Opened after the migrations, so it sees every table they made.
  const sqliteReader = new SQLite(path, { readonly: true });
  sqliteReader.pragma('busy_timeout = 5000');
  return {
    db,
    dialect,
    sqliteReader,
    close: async () => {
      sqliteReader.close();
      await db.destroy();
    },
  };
}

function openSqlite(path: string): { db: Kysely<Database>; dialect: DialectName; pgPool?: undefined } {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  // FULL: a transaction that returned is on disk, so an acknowledged event survives a power cut.
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('cache_size = -65536');
  return { db: new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) }), dialect: 'sqlite' };
}

function openPostgres(url: string, options: OpenDatabaseOptions): { db: Kysely<Database>; dialect: DialectName; pgPool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(options.schema ? { options: `-c search_path=${options.schema},public` } : {}),
  });
  // No JIT: its compile time (tens of ms) dwarfs our indexed queries, and the planner's cost estimates of
  // search queries over large tables cross jit_above_cost even when they touch a handful of rows.
  pool.on('connect', (client) => {
    client.query('SET jit = off').catch(() => undefined);
  });
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), dialect: 'postgres', pgPool: pool };
}

async function migrate(db: Kysely<Database>, dialect: DialectName): Promise<void> {
  // Kysely looks its bookkeeping tables up by name across every schema; on PostgreSQL pin them to the
  // schema we work in, or a second collab-host schema in the same database would be taken for ours.
  const migrationTableSchema =
    dialect === 'postgres' ? (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db)).rows[0]?.schema : undefined;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => allMigrations(dialect) },
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String((error as Error).message ?? error)}`);
  }
}
