import type { CompiledQuery, DatabaseConnection, Dialect, Driver, Kysely, QueryResult, TransactionSettings } from 'kysely';

/** The tables whose rows the read model holds (their triggers write the change feed, migration 110). */
const DIRECTORY_TABLE = /\b(teams|departments|users|user_departments|files|file_grants|file_contents)\b/i;
const READ = /^\s*(select|pragma\s+\w+\s*$)/i;

/**
 * Counts the commits of this process that may have written the directory: raised after every commit of a
 * transaction that ran a write naming a directory table, and after every such write outside a
 * transaction. The read model compares it with the count it last caught up at, so the next request after
 * a write here sees the write, with no database read while nothing was written.
 */
export class WriteSignal {
  generation = 0;
}

interface ConnectionState {
  inTransaction: boolean;
  wrote: boolean;
}

/** The dialect `inner`, its writes to the directory counted by `signal`. */
export function signallingDialect(inner: Dialect, signal: WriteSignal): Dialect {
  return {
    createAdapter: () => inner.createAdapter(),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createIntrospector: (db: Kysely<any>) => inner.createIntrospector(db), // eslint-disable-line @typescript-eslint/no-explicit-any
    createDriver: () => signallingDriver(inner.createDriver(), signal),
  };
}

function signallingDriver(driver: Driver, signal: WriteSignal): Driver {
  const states = new WeakMap<DatabaseConnection, ConnectionState>();
  const stateOf = (connection: DatabaseConnection): ConnectionState => {
    let state = states.get(connection);
    if (!state) {
      state = { inTransaction: false, wrote: false };
      states.set(connection, state);
    }
    return state;
  };
  const wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const inners = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrap = (connection: DatabaseConnection) => inners.get(connection) ?? connection;
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    let outer = wrapped.get(connection);
    if (outer) return outer;
    outer = {
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const result = await connection.executeQuery<R>(query);
        if (!READ.test(query.sql) && DIRECTORY_TABLE.test(query.sql)) {
          const state = stateOf(connection);
          if (state.inTransaction) state.wrote = true;
          else signal.generation += 1;
        }
        return result;
      },
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
    };
    wrapped.set(connection, outer);
    inners.set(outer, connection);
    return outer;
  };
  return {
    init: () => driver.init(),
    acquireConnection: async () => wrap(await driver.acquireConnection()),
    async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
      await driver.beginTransaction(unwrap(connection), settings);
      Object.assign(stateOf(unwrap(connection)), { inTransaction: true, wrote: false });
    },
    async commitTransaction(connection: DatabaseConnection) {
      const state = stateOf(unwrap(connection));
      try {
        await driver.commitTransaction(unwrap(connection));
      } finally {
        // Raised even when the commit failed: a catch-up that finds nothing costs one read.
        if (state.wrote) signal.generation += 1;
        Object.assign(state, { inTransaction: false, wrote: false });
      }
    },
    async rollbackTransaction(connection: DatabaseConnection) {
      await driver.rollbackTransaction(unwrap(connection));
      Object.assign(stateOf(unwrap(connection)), { inTransaction: false, wrote: false });
    },
    ...(driver.savepoint ? { savepoint: driver.savepoint.bind(driver) } : {}),
    ...(driver.rollbackToSavepoint ? { rollbackToSavepoint: driver.rollbackToSavepoint.bind(driver) } : {}),
    ...(driver.releaseSavepoint ? { releaseSavepoint: driver.releaseSavepoint.bind(driver) } : {}),
    releaseConnection: (connection: DatabaseConnection) => driver.releaseConnection(unwrap(connection)),
    destroy: () => driver.destroy(),
  };
}
