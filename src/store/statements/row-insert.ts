import { bulkInsert, insertNewRows, type BulkTable } from './bulk-insert.js';
import type { ConflictClauses } from './bulk-table.js';
import type { Database, Db } from '../schema/schema.js';
import { storableText } from '../../directory/text-rules.js';

/** The PostgreSQL element types the bulk statements cast their column arrays to. */
export type PgType = 'text' | 'integer' | 'bigint';

/**
 * A table written in bulk from typed rows: each column is named by the row field that fills it, with its
 * PostgreSQL type. The positional arrays the bulk statements need are built here, from the names, so no
 * column list elsewhere has to stay in step with them.
 */
export interface RowTable<Row> {
  table: keyof Database;
  columns: { readonly [K in keyof Row & string]: PgType };
  /** A conflict clause for `insertRows` (an upsert), in each syntax; without it a conflicting row is an error. */
  onConflict?: ConflictClauses;
}

/** Each spec's positional form, made once (the dialects keep their statement texts by it). */
const bulkTables = new WeakMap<object, BulkTable>();

function positional<Row>(spec: RowTable<Row>, rows: readonly Row[]): { bulk: BulkTable; values: unknown[][] } {
  let bulk = bulkTables.get(spec);
  if (!bulk) {
    const columns = Object.keys(spec.columns) as Array<keyof Row & string>;
    bulk = { table: spec.table, columns, pgTypes: columns.map((name) => spec.columns[name]), ...(spec.onConflict ? { onConflict: spec.onConflict } : {}) };
    bulkTables.set(spec, bulk);
  }
  const names = bulk.columns as Array<keyof Row & string>;
  return { bulk, values: rows.map((row) => names.map((name) => row[name] ?? null)) };
}

/** Inserts the rows with as few statements as the dialect allows. */
export async function insertRows<Row>(db: Db, spec: RowTable<Row>, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  const { bulk, values } = positional(spec, rows);
  await bulkInsert(db, bulk, values);
}

/** Inserts the rows that do not conflict with a unique key, returning `returning` of those inserted. */
export async function insertNewTypedRows<Row, Returned>(db: Db, spec: RowTable<Row>, rows: readonly Row[], returning: ReadonlyArray<keyof Returned & string>): Promise<Returned[]> {
  if (rows.length === 0) return [];
  const { bulk, values } = positional(spec, rows);
  return insertNewRows<Returned>(db, bulk, values, returning);
}

/**
 * Text as both dialects can store it (src/directory/text-rules.ts): a NUL or a lone surrogate that reached a
 * column value through an event (the body itself is stored as received) becomes U+FFFD on both stores alike.
 */
export { storableText };
