import type { CompiledQuery } from 'kysely';
import { dialectOf } from '../dialect/dialect.js';
import type { BulkStatementSpec, BulkTable } from './bulk-table.js';
import type { Database, Db } from '../schema/schema.js';

export type { BulkTable } from './bulk-table.js';

/** PostgreSQL element types of the columns written in bulk. */
export type PgElementType = 'text' | 'integer' | 'bigint';

/**
 * A table written in bulk from typed row objects: every column of `Row` with its PostgreSQL element type,
 * in the order written. The values of each row are taken by column name here, in one place, so a
 * reordered or added column cannot shift data.
 */
export interface RowTable<Row> {
  table: keyof Database;
  columns: { readonly [Column in keyof Row & string]-?: PgElementType };
  /** Upsert on this key, updating every other column; absent = plain insert. */
  conflictKey?: readonly (keyof Row & string)[];
}

/** Rows per statement: SQLite gets them as one JSON text, PostgreSQL as one array per column. */
const ROWS_PER_STATEMENT = 10_000;

/**
 * Inserts (or upserts) many rows with as few statements as the dialect allows, without building a query
 * tree per chunk (the statements are built in src/store/sqlite|postgres/bulk-insert.ts). Values must be
 * text, numbers or null.
 */
export async function bulkInsert(db: Db, spec: BulkTable, rows: readonly (readonly unknown[])[]): Promise<void> {
  const tail = conflictClause(db, spec);
  // A plain insert may take the dialect's faster path (PostgreSQL: COPY; no conflict clause there).
  if (tail === '' && (await dialectOf(db).bulkLoad(db, spec, rows))) return;
  for (const query of insertStatements(db, spec, rows, tail)) await db.executeQuery(query);
}

/** `bulkInsert` of typed row objects (see `RowTable`). */
export async function bulkInsertRows<Row>(db: Db, spec: RowTable<Row>, rows: readonly Row[]): Promise<void> {
  const columns = Object.keys(spec.columns) as (keyof Row & string)[];
  const table: BulkTable = {
    table: spec.table,
    columns,
    pgTypes: columns.map((column) => spec.columns[column]),
    ...(spec.conflictKey ? { conflictKey: spec.conflictKey } : {}),
  };
  await bulkInsert(
    db,
    table,
    rows.map((row) => columns.map((column) => row[column] ?? null)),
  );
}

/**
 * The same statements, skipping rows that conflict with a unique key (`ON CONFLICT DO NOTHING`), and
 * returning the `returning` columns of the rows inserted.
 */
export async function insertNewRows<Row>(db: Db, spec: Omit<BulkTable, 'conflictKey'>, rows: readonly (readonly unknown[])[], returning: readonly string[]): Promise<Row[]> {
  const inserted: Row[] = [];
  const dialect = dialectOf(db);
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const query = dialect.insertNewStatement(spec, rows.slice(start, start + ROWS_PER_STATEMENT), returning);
    inserted.push(...(await db.executeQuery<Row>(query)).rows);
  }
  return inserted;
}

function insertStatements(db: Db, spec: BulkStatementSpec, rows: readonly (readonly unknown[])[], tail: string): CompiledQuery[] {
  const dialect = dialectOf(db);
  const statements: CompiledQuery[] = [];
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    statements.push(dialect.bulkInsertStatement(spec, rows.slice(start, start + ROWS_PER_STATEMENT), tail));
  }
  return statements;
}

function conflictClause(db: Db, spec: BulkTable): string {
  const dialect = dialectOf(db);
  if (spec.onConflict) return ` ${spec.onConflict[dialect.conflictSyntax]}`;
  return spec.conflictKey ? dialect.upsertTail(spec.columns, spec.conflictKey) : '';
}
