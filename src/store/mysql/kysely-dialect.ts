import { MysqlAdapter, MysqlDialect, sql, type Dialect, type Kysely } from 'kysely';
import type { Pool } from 'mysql2';
import { lockName, releasingNamedLocks } from './named-locks.js';
import { startMysqlSession } from './pool.js';

/** How long a migration waits for another process migrating the same database. */
const MIGRATION_WAIT_SECONDS = 3600;

/**
 * Kysely's MySQL adapter, told what MariaDB can do: INSERT and DELETE … RETURNING (10.5+; Kysely's own
 * adapter drops the returned rows, as MySQL 8 has none). The migration lock is named by the database, not
 * one name for the whole server, so two databases on one server migrate side by side.
 */
export class MysqlStoreAdapter extends MysqlAdapter {
  override get supportsReturning(): boolean {
    return true;
  }

  override async acquireMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`SELECT GET_LOCK(${lockName('migrations')}, ${MIGRATION_WAIT_SECONDS})`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>): Promise<void> {
    await sql`SELECT RELEASE_LOCK(${lockName('migrations')})`.execute(db);
  }
}

/** Kysely's MySQL dialect over `pool`: the session of pool.ts, the adapter above, named locks per transaction. */
export function mysqlKyselyDialect(pool: Pool): Dialect {
  const inner = new MysqlDialect({ pool, onCreateConnection: startMysqlSession });
  return releasingNamedLocks({
    createAdapter: () => new MysqlStoreAdapter(),
    createDriver: () => inner.createDriver(),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createIntrospector: (db) => inner.createIntrospector(db),
  });
}
