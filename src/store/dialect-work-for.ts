import { dialectOf } from './dialect.js';
import type { DialectWork } from './dialect-work.js';
import type { Db } from './schema.js';

/** The work claims of the database `db` talks to (src/store/dialect-work.ts). */
export function dialectWork(db: Db): DialectWork {
  return dialectOf(db).work;
}
