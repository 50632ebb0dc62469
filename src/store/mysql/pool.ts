import { CompiledQuery, type DatabaseConnection } from 'kysely';
import { createPool, type Pool } from 'mysql2';
import { binaryCollationOf } from './server.js';

/** Where a `mysql://` (or `mariadb://`) DATABASE_URL points. */
export interface MysqlTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/**
 * `mysql://user:password@host:port/database` or `mariadb://…` (the same thing). User and password may be
 * percent-encoded; the port defaults to 3306. A URL without a database is refused: collab-host keeps its
 * tables in the database the URL names and never picks one itself.
 */
export function parseMysqlUrl(url: string): MysqlTarget {
  const parsed = new URL(url);
  if (parsed.protocol !== 'mysql:' && parsed.protocol !== 'mariadb:') throw new Error('not a mysql:// or mariadb:// URL');
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) throw new Error('the URL names no database (mysql://user:password@host:port/database)');
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 3306,
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database,
  };
}

/** Whether a DATABASE_URL names a MySQL or MariaDB server. */
export function isMysqlUrl(url: string): boolean {
  return /^(mysql|mariadb):\/\//.test(url);
}

/**
 * The session every pooled connection starts with, so the same SQL means the same on all three stores:
 * - PIPES_AS_CONCAT and ANSI_QUOTES: `a || b` concatenates and `"name"` is an identifier, as in SQL
 *   (backticks still quote too); strict tables: a value too long for its column is an error, not cut;
 * - READ COMMITTED, PostgreSQL's default: every statement sees what committed before it;
 * - GROUP_CONCAT without its 1,024-byte cut;
 * - UTC, and utf8mb4 with the tables' binary collation (src/store/mysql/server.ts) for literals and
 *   JSON_TABLE columns, so that they compare with columns without a mix of collations.
 */
const SESSION = [
  "SET SESSION sql_mode = 'STRICT_ALL_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ZERO_DATE,NO_ZERO_IN_DATE,NO_ENGINE_SUBSTITUTION,PIPES_AS_CONCAT,ANSI_QUOTES'",
  'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
  "SET time_zone = '+00:00'",
  // GROUP_CONCAT cuts its result at this many bytes (1,024 on MySQL 8; 1 GiB is MariaDB's most): the read model's load joins a
  // file's grants with it (src/store/change-feed/read-model/model-rows.ts); a row is still bounded by max_allowed_packet.
  'SET SESSION group_concat_max_len = 1073741824',
];

/** Runs the session settings on a connection Kysely takes from the pool for the first time. */
export async function startMysqlSession(connection: DatabaseConnection): Promise<void> {
  for (const statement of SESSION) await connection.executeQuery(CompiledQuery.raw(statement));
  const { rows } = await connection.executeQuery<{ version: string }>(CompiledQuery.raw('SELECT VERSION() AS version'));
  await connection.executeQuery(CompiledQuery.raw(`SET NAMES utf8mb4 COLLATE ${binaryCollationOf(rows[0]?.version ?? '')}`));
}

/**
 * A mysql2 pool for the URL: utf8mb4, UTC, numbers as numbers (BIGINT and DECIMAL too, unless beyond
 * 2^53, which none of ours reach), DATE/DATETIME as strings (collab-host stores times as text anyway).
 */
export function createMysqlPool(url: string, options: { poolSize?: number; onConnectionError?: (error: Error) => void }): Pool {
  const target = parseMysqlUrl(url);
  const pool = createPool({
    ...target,
    connectionLimit: options.poolSize ?? 10,
    charset: 'UTF8MB4_BIN',
    timezone: 'Z',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    decimalNumbers: true,
    connectTimeout: 5000,
    enableKeepAlive: true,
  });
  // A connection that fails while idle in the pool: mysql2 drops it and opens a new one when needed; the
  // listener keeps the error from ending the process.
  pool.on('connection', (connection) => {
    connection.on('error', (error: Error) => options.onConnectionError?.(error));
  });
  return pool;
}
