import { CompiledQuery } from 'kysely';
import { quoteIdentifier, type BulkStatementSpec } from '../statements/bulk-table.js';

/** PostgreSQL: `INSERT … SELECT * FROM unnest($1::text[], $2::integer[], …)`, one array per column. */
export function bulkInsertStatement(spec: BulkStatementSpec, rows: readonly (readonly unknown[])[], tail: string): CompiledQuery {
  const columns = spec.columns.map(quoteIdentifier).join(', ');
  const unnest = spec.pgTypes.map((type, index) => `$${index + 1}::${type}[]`).join(', ');
  const arrays = spec.columns.map((_, column) => rows.map((row) => row[column] ?? null));
  return CompiledQuery.raw(`INSERT INTO ${quoteIdentifier(spec.table)} (${columns}) SELECT * FROM unnest(${unnest})${tail}`, arrays);
}
