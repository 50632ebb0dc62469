import type { Db } from '../schema.js';

/**
 * PostgreSQL: dropping an index would lock every reader of the table out until the load commits, so the
 * load runs with its indexes in place.
 */
export async function withIndexesDeferred<T>(_db: Db, _tables: readonly string[], work: () => Promise<T>): Promise<T> {
  return work();
}
