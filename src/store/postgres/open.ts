import { PostgresDialect, type Dialect } from 'kysely';
import pg from 'pg';
import type { ConnectOptions } from '../connection/connect-options.js';
import type { Connected } from '../dialect/dialect.js';
import { trackConnection } from './copy-rows.js';
import { OwnSchemaIntrospector } from './own-schema-introspector.js';

/**
 * COUNT(*) and BIGINT come back from pg as strings by default; every one of ours fits a JS number. Set on
 * our own pool only: a host application's other `pg` clients keep pg's defaults.
 */
const PG_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? (value: string) => Number.parseInt(value, 10) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** `postgres://…` (or `postgresql://…`) through node-postgres's pool. */
export function connectPostgres(url: string, options: ConnectOptions): Connected {
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
  return { kysely: ownSchemaDialect(new PostgresDialect({ pool })), pgPool: pool };
}

/** Kysely's PostgreSQL dialect, its introspection (the migrator's look for its tables) kept to our schema. */
function ownSchemaDialect(inner: PostgresDialect): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createDriver: () => inner.createDriver(),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createIntrospector: (db) => new OwnSchemaIntrospector(db),
  };
}
