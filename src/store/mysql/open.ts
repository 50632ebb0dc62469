import type { ConnectOptions } from '../connection/connect-options.js';
import type { Connected } from '../dialect/dialect.js';
import { mysqlKyselyDialect } from './kysely-dialect.js';
import { createMysqlPool } from './pool.js';

/**
 * MySQL or MariaDB through mysql2's pool: utf8mb4, UTC, numbers as numbers, and the session of
 * src/store/mysql/pool.ts on every connection; named locks last as long as the transaction
 * (src/store/mysql/named-locks.ts).
 */
export function connectMysql(url: string, options: ConnectOptions): Connected {
  const pool = createMysqlPool(url, options);
  return { kysely: mysqlKyselyDialect(pool), mysqlPool: pool };
}
