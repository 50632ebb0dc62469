import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/store/schema/schema.js';

/**
 * PostgreSQL: `read` in a transaction without parallel workers, for reads of the catalogue (and their
 * plans): a parallel worker scanning it may meet another test's schema half dropped and fail with
 * "schema … does not exist".
 */
export function serially<T>(db: Kysely<Database>, read: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL max_parallel_workers_per_gather = 0`.execute(trx);
    return read(trx);
  });
}
