import type { Db } from '../schema/schema.js';

/**
 * MySQL: dropping or adding an index commits the transaction it runs in (DDL), so a load inside a
 * transaction keeps its indexes in place and InnoDB grows them row by row.
 */
export async function withIndexesDeferred<T>(_db: Db, _tables: readonly string[], work: () => Promise<T>): Promise<T> {
  return work();
}
