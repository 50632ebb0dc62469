import { sql } from 'kysely';
import { quoteIdentifier } from '../statements/bulk-table.js';
import type { Db } from '../schema/schema.js';

/**
 * PostgreSQL: dropping an index locks every reader of its table out until the load commits, so a load
 * over rows that others read runs with its indexes in place. A load into tables nobody could read
 * anything from (`nothingToRead`: the first import of a directory) builds the secondary indexes once at
 * the end instead, with more memory for the sort: several times faster than growing them row by row.
 * Constraints' indexes (primary keys, unique) stay.
 */
export async function withIndexesDeferred<T>(db: Db, tables: readonly string[], work: () => Promise<T>, options: { nothingToRead: boolean }): Promise<T> {
  if (!options.nothingToRead) return work();
  const { rows: indexes } = await sql<{ name: string; definition: string }>`
    SELECT i.indexname AS name, i.indexdef AS definition
      FROM pg_indexes i
     WHERE i.schemaname = current_schema() AND i.tablename = ANY(${[...tables]}::text[])
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`.execute(db);
  for (const index of indexes) await sql.raw(`DROP INDEX ${quoteIdentifier(index.name)}`).execute(db);
  const result = await work();
  await sql`SET LOCAL maintenance_work_mem = '256MB'`.execute(db);
  for (const index of indexes) await sql.raw(index.definition).execute(db);
  return result;
}
