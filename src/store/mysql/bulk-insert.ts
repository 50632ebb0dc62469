import { CompiledQuery } from 'kysely';
import { quoteIdentifier, type BulkStatementSpec, type BulkTable } from '../bulk-table.js';

/**
 * MySQL: `INSERT … VALUES (?, …), (?, …)`; mysql2 binds the values into the text on the client, so the
 * limit is the server's max_allowed_packet (16 MB by default on MariaDB, 64 MB on MySQL 8), not a
 * number of placeholders: callers keep a statement's rows to a few thousand.
 */
export function bulkInsertStatement(spec: BulkStatementSpec, rows: readonly (readonly unknown[])[], tail: string): CompiledQuery {
  const columns = spec.columns.map(quoteIdentifier).join(', ');
  const row = `(${spec.columns.map(() => '?').join(', ')})`;
  const values = rows.map(() => row).join(', ');
  return CompiledQuery.raw(`INSERT INTO ${quoteIdentifier(spec.table)} (${columns}) VALUES ${values}${tail}`, rows.flatMap((values) => values.map((value) => value ?? null)));
}

/**
 * MySQL's form of an upsert on `conflictKey` (MySQL has no ON CONFLICT: any unique key that a row meets
 * turns the insert into the update): every other column takes the new row's value; with no other column,
 * a no-op update (`INSERT IGNORE` would also turn errors such as a too long value into warnings).
 */
export function conflictClause(spec: Pick<BulkTable, 'columns' | 'conflictKey'>): string {
  if (!spec.conflictKey) return '';
  const updates = spec.columns.filter((column) => !spec.conflictKey!.includes(column));
  if (updates.length === 0) {
    const key = quoteIdentifier(spec.conflictKey[0]!);
    return ` ON DUPLICATE KEY UPDATE ${key} = ${key}`;
  }
  return ` ON DUPLICATE KEY UPDATE ${updates.map((column) => `${quoteIdentifier(column)} = VALUES(${quoteIdentifier(column)})`).join(', ')}`;
}
