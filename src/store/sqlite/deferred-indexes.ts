import { quoteIdentifier } from '../statements/bulk-table.js';
import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

const SECONDARY_INDEXES = new Statement(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (SELECT value FROM json_each($1))`);

/**
 * SQLite: drops the secondary indexes of `tables`, runs the load, creates them again. SQLite's DDL is
 * transactional, and readers on other connections keep reading the last committed state, indexes
 * included; building an index once over the rows is several times faster than growing it row by row.
 */
export async function withIndexesDeferred<T>(db: Db, tables: readonly string[], work: () => Promise<T>, _options: { nothingToRead: boolean }): Promise<T> {
  const indexes = await SECONDARY_INDEXES.run<{ name: string; sql: string }>(db, [JSON.stringify(tables)]);
  for (const index of indexes) await new Statement(`DROP INDEX ${quoteIdentifier(index.name)}`).run(db, []);
  const result = await work();
  for (const index of indexes) await new Statement(index.sql).run(db, []);
  return result;
}
