import { dialectOf } from './dialect.js';
import type { DialectWork } from './dialect-work.js';
import type { Db } from '../schema/schema.js';

/** The work claims of the database `db` talks to (src/store/dialect/dialect-work.ts). */
export function dialectWork(db: Db): DialectWork {
  return dialectOf(db).work;
}
