import { CompiledQuery } from 'kysely';
import { quoteIdentifier, type BulkStatementSpec } from '../statements/bulk-table.js';

/**
 * SQLite: `INSERT … SELECT value->>0, … FROM json_each(?)` with the rows as one JSON array (about twice
 * as fast as multi-row VALUES with thousands of bound parameters). `WHERE true`: SQLite's parser needs it
 * before an ON CONFLICT clause after a SELECT.
 */
export function bulkInsertStatement(spec: BulkStatementSpec, rows: readonly (readonly unknown[])[], tail: string): CompiledQuery {
  const columns = spec.columns.map(quoteIdentifier).join(', ');
  const extract = spec.columns.map((_, index) => `value->>${index}`).join(', ');
  const text = `INSERT INTO ${quoteIdentifier(spec.table)} (${columns}) SELECT ${extract} FROM json_each(?) WHERE true${tail}`;
  return CompiledQuery.raw(text, [JSON.stringify(rows)]);
}
