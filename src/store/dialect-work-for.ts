import { isPostgres } from './dialect.js';
import { postgresDialectWork } from './postgres/dialect-work.js';
import type { Db } from './schema.js';
import { sqliteDialectWork } from './sqlite/dialect-work.js';
import type { DialectWork } from './dialect-work.js';

/** The work claims of the database `db` talks to (src/store/dialect-work.ts). */
export function dialectWork(db: Db): DialectWork {
  return isPostgres(db) ? postgresDialectWork : sqliteDialectWork;
}
