import { CompiledQuery, sql, type DatabaseConnection, type Dialect, type Driver, type Expression, type Kysely, type RawBuilder } from 'kysely';

/**
 * MySQL's named locks (GET_LOCK) belong to the session, not the transaction, and their names are shared
 * by every database of the server. collab-host's are named by the database and the key, hashed into the
 * 64 characters a name may have, and released when Kysely gives the connection back to the pool (after
 * the transaction's commit or rollback, or after a statement run outside one): held for the transaction,
 * as PostgreSQL's transaction-level advisory locks are.
 */
export function lockName(key: Expression<string> | string): RawBuilder<string> {
  return sql<string>`SHA1(CONCAT(DATABASE(), ':', ${key}))`;
}

/** Takes the named lock of `key`, waiting for it as long as `waitSeconds`; whether it was taken. */
export function getLock(key: string, waitSeconds: number): RawBuilder<number | null> {
  return sql<number | null>`GET_LOCK(${lockName(key)}, ${waitSeconds})`;
}

const TAKES_LOCK = /\bGET_LOCK\s*\(/i;
const RELEASE_ALL = CompiledQuery.raw('DO RELEASE_ALL_LOCKS()');

/** The dialect `inner` (MySQL), its connections' named locks released as they go back to the pool. */
export function releasingNamedLocks(inner: Dialect): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createIntrospector: (db: Kysely<any>) => inner.createIntrospector(db), // eslint-disable-line @typescript-eslint/no-explicit-any
    createDriver: () => releasingDriver(inner.createDriver()),
  };
}

function releasingDriver(driver: Driver): Driver {
  const holding = new WeakSet<DatabaseConnection>();
  const watched = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const inners = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrap = (connection: DatabaseConnection) => inners.get(connection) ?? connection;
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    let outer = watched.get(connection);
    if (outer) return outer;
    outer = {
      executeQuery: (query) => {
        if (TAKES_LOCK.test(query.sql)) holding.add(connection);
        return connection.executeQuery(query);
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    };
    watched.set(connection, outer);
    inners.set(outer, connection);
    return outer;
  };
  return {
    init: () => driver.init(),
    acquireConnection: async () => wrap(await driver.acquireConnection()),
    beginTransaction: (connection, settings) => driver.beginTransaction(unwrap(connection), settings),
    commitTransaction: (connection) => driver.commitTransaction(unwrap(connection)),
    rollbackTransaction: (connection) => driver.rollbackTransaction(unwrap(connection)),
    ...(driver.savepoint ? { savepoint: (connection, name, compile) => driver.savepoint!(unwrap(connection), name, compile) } : {}),
    ...(driver.rollbackToSavepoint ? { rollbackToSavepoint: (connection, name, compile) => driver.rollbackToSavepoint!(unwrap(connection), name, compile) } : {}),
    ...(driver.releaseSavepoint ? { releaseSavepoint: (connection, name, compile) => driver.releaseSavepoint!(unwrap(connection), name, compile) } : {}),
    async releaseConnection(connection) {
      const inner = unwrap(connection);
      try {
        if (holding.has(inner)) {
          holding.delete(inner);
          await inner.executeQuery(RELEASE_ALL);
        }
      } finally {
        await driver.releaseConnection(inner);
      }
    },
    destroy: () => driver.destroy(),
  };
}
