import { CompiledQuery, PostgresAdapter, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** A table written in bulk: its columns, their PostgreSQL types, and what a conflicting row does. */
export interface BulkTable {
  table: keyof Database;
  columns: readonly string[];
  /** PostgreSQL element type of each column (`text`, `integer`), for the unnest arrays. */
  pgTypes: readonly string[];
  /** Upsert on this key, updating every other column; absent = plain insert. */
  conflictKey?: readonly string[];
}

/** Rows per SQLite statement (one JSON text parameter). */
const SQLITE_ROWS = 10_000;
/** Rows per PostgreSQL statement: the whole chunk travels as one array per column. */
const POSTGRES_ROWS = 10_000;

/**
 * Inserts (or upserts) many rows with as few statements as the dialect allows, without building a query
 * tree per chunk: SQLite gets `INSERT … SELECT … FROM json_each(?)` with the rows as one JSON array,
 * PostgreSQL gets `INSERT … SELECT * FROM unnest($1::text[], …)`, one array per column. Values must be
 * text, numbers or null.
 */
export async function bulkInsert(db: Db, spec: BulkTable, rows: readonly (readonly unknown[])[]): Promise<void> {
  if (rows.length === 0) return;
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const conflict = conflictClause(spec);
  const columns = spec.columns.map(quote).join(', ');
  if (postgres) {
    for (let start = 0; start < rows.length; start += POSTGRES_ROWS) {
      const chunk = rows.slice(start, start + POSTGRES_ROWS);
      const arrays = spec.columns.map((_, column) => chunk.map((row) => row[column] ?? null));
      const unnest = spec.pgTypes.map((type, index) => `$${index + 1}::${type}[]`).join(', ');
      const text = `INSERT INTO ${quote(spec.table)} (${columns}) SELECT * FROM unnest(${unnest})${conflict}`;
      await db.executeQuery(CompiledQuery.raw(text, arrays));
    }
    return;
  }
  // SQLite: the rows travel as one JSON array per statement and json_each unpacks them in C, which is
  // about twice as fast as multi-row VALUES with thousands of bound parameters.
  const extract = spec.columns.map((_, index) => `value->>${index}`).join(', ');
  const text = `INSERT INTO ${quote(spec.table)} (${columns}) SELECT ${extract} FROM json_each(?) WHERE true${conflict}`;
  for (let start = 0; start < rows.length; start += SQLITE_ROWS) {
    await db.executeQuery(CompiledQuery.raw(text, [JSON.stringify(rows.slice(start, start + SQLITE_ROWS))]));
  }
}

function conflictClause(spec: BulkTable): string {
  if (!spec.conflictKey) return '';
  const updates = spec.columns.filter((column) => !spec.conflictKey!.includes(column));
  const key = spec.conflictKey.map(quote).join(', ');
  if (updates.length === 0) return ` ON CONFLICT (${key}) DO NOTHING`;
  return ` ON CONFLICT (${key}) DO UPDATE SET ${updates.map((column) => `${quote(column)} = excluded.${quote(column)}`).join(', ')}`;
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
