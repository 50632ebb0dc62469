import { CompiledQuery } from 'kysely';
import { quoteIdentifier, type BulkStatementSpec } from '../statements/bulk-table.js';

/**
 * MySQL: `INSERT … VALUES (?, …), (?, …)`; mysql2 binds the values into the text on the client, so the
 * limit is the server's max_allowed_packet (16 MB by default on MariaDB, 64 MB on MySQL 8), not a
 * number of placeholders: callers keep a statement's rows to a few thousand.
 */
export function bulkInsertStatement(spec: BulkStatementSpec, rows: readonly (readonly unknown[])[], tail: string): CompiledQuery {
  const columns = spec.columns.map(quoteIdentifier).join(', ');
  const row = `(${spec.columns.map(() => '?').join(', ')})`;
  const values = rows.map(() => row).join(', ');
  return CompiledQuery.raw(
    `INSERT INTO ${quoteIdentifier(spec.table)} (${columns}) VALUES ${values}${tail}`,
    rows.flatMap((values) => values.map((value) => value ?? null)),
  );
}

/**
 * MySQL's form of an upsert on `conflictKey` (MySQL has no ON CONFLICT: any unique key that a row meets
 * turns the insert into the update): every other column takes the new row's value; with no other column,
 * a no-op update (`INSERT IGNORE` would also turn errors such as a too long value into warnings).
 */
export function upsertTail(columns: readonly string[], conflictKey: readonly string[]): string {
  const updates = columns.filter((column) => !conflictKey.includes(column));
  if (updates.length === 0) {
    const key = quoteIdentifier(conflictKey[0]!);
    return ` ON DUPLICATE KEY UPDATE ${key} = ${key}`;
  }
  return ` ON DUPLICATE KEY UPDATE ${updates.map((column) => `${quoteIdentifier(column)} = VALUES(${quoteIdentifier(column)})`).join(', ')}`;
}

/**
 * `INSERT IGNORE … RETURNING` (MariaDB 10.5+): rows meeting a unique key are skipped and only the inserted
 * ones returned (an upsert's RETURNING would return the rows it met too). IGNORE also lets a value too long
 * for its column through, cut: callers keep their values to the columns' lengths. MySQL 8 has no RETURNING.
 */
export function insertNewStatement(spec: BulkStatementSpec, rows: readonly (readonly unknown[])[], returning: readonly string[]): CompiledQuery {
  const insert = bulkInsertStatement(spec, rows, ` RETURNING ${returning.map(quoteIdentifier).join(', ')}`);
  return CompiledQuery.raw(insert.sql.replace(/^INSERT INTO /, 'INSERT IGNORE INTO '), [...insert.parameters]);
}
