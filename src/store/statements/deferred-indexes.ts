import { dialectOf } from '../dialect/dialect.js';
import type { Db } from '../schema/schema.js';

/**
 * Runs a bulk load with the secondary indexes of `tables` built once at the end where the database allows
 * it without blocking readers (SQLite; PostgreSQL when `nothingToRead`: the tables held nothing before the
 * load), and as a plain load otherwise. Primary keys and unique constraints stay. Run it inside the load's
 * transaction: a failed load rolls the indexes back too.
 */
export async function withIndexesDeferred<T>(db: Db, tables: readonly string[], work: () => Promise<T>, options: { nothingToRead: boolean }): Promise<T> {
  return dialectOf(db).withIndexesDeferred(db, tables, work, options);
}
