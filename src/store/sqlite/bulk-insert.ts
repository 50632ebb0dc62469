import { CompiledQuery } from 'kysely';
import { quoteIdentifier, type BulkStatementSpec } from '../statements/bulk-table.js';

/**
 * SQLite: `INSERT … SELECT value->>0, … FROM json_each(?)` with the rows as one JSON array (about twice
 * as fast as multi-row VALUES with thousands of bound parameters). `WHERE true`: SQLite's parser needs it
 * before an ON CONFLICT clause after a SELECT.
 */
export function bulkInsertStatement(spec: BulkStatementSpec, rows: readonly (readonly unknown[])[], tail: string): CompiledQuery {
  return CompiledQuery.raw(statementText(spec, tail), [JSON.stringify(rows)]);
}

/** The statements' texts by spec and tail: a spec kept for its table (row-insert.ts) is written out once. */
const texts = new WeakMap<BulkStatementSpec, Map<string, string>>();

function statementText(spec: BulkStatementSpec, tail: string): string {
  let byTail = texts.get(spec);
  if (!byTail) texts.set(spec, (byTail = new Map()));
  let text = byTail.get(tail);
  if (text === undefined) {
    const columns = spec.columns.map(quoteIdentifier).join(', ');
    const extract = spec.columns.map((_, index) => `value->>${index}`).join(', ');
    text = `INSERT INTO ${quoteIdentifier(spec.table)} (${columns}) SELECT ${extract} FROM json_each(?) WHERE true${tail}`;
    // Tails are few per spec (its conflict clause, a RETURNING list); bounded all the same.
    if (byTail.size < 16) byTail.set(tail, text);
  }
  return text;
}
