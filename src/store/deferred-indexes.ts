import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Runs a bulk load with the secondary indexes of `tables` dropped, then creates them again: building an
 * index once over sorted rows is several times faster than growing it row by row. SQLite only (its DDL is
 * transactional, and readers on other connections keep reading the last committed state, indexes
 * included); on PostgreSQL dropping an index would lock every reader out, so `work` just runs.
 * Primary keys and unique constraints stay.
 */
export async function withIndexesDeferred<T>(db: Db, dialect: 'sqlite' | 'postgres', tables: readonly string[], work: () => Promise<T>): Promise<T> {
  if (dialect !== 'sqlite') return work();
  const list = sql.join(tables.map((table) => sql`${table}`));
  const indexes = await sql<{ name: string; sql: string }>`
    SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${list})`.execute(db);
  for (const index of indexes.rows) await sql.raw(`DROP INDEX "${index.name.replaceAll('"', '""')}"`).execute(db);
  const result = await work();
  for (const index of indexes.rows) await sql.raw(index.sql).execute(db);
  return result;
}
