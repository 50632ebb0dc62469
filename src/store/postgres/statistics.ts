import { quoteIdentifier } from '../statements/bulk-table.js';
import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/**
 * PostgreSQL plans from table statistics; right after a bulk load they describe the old tables (or none),
 * and the permission joins fall back to sequential scans until autovacuum catches up. ANALYZE them now.
 */
export async function refreshStatistics(db: Db, tables: readonly string[]): Promise<void> {
  if (tables.length === 0) return;
  await new Statement(`ANALYZE ${tables.map(quoteIdentifier).join(', ')}`).run(db, []);
}

/** Nothing to keep up: PostgreSQL's autovacuum analyses tables as they change (and imports run ANALYZE). */
export async function keepStatistics(_db: Db): Promise<void> {}
