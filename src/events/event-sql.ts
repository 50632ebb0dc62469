import { CompiledQuery, PostgresAdapter, type Kysely, type Transaction } from 'kysely';
import type { BulkTable } from '../store/bulk-insert.js';
import type { Database } from '../store/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Rows per statement: SQLite gets them as one JSON text, PostgreSQL as one array per column. */
const ROWS_PER_STATEMENT = 10_000;

export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * A fixed statement written with `?` placeholders, run without building a Kysely query tree (the
 * intake runs several per event; the SQLite statement cache reuses the prepared statement by its text).
 */
export class FixedStatement {
  private readonly postgresText: string;

  constructor(private readonly sqliteText: string) {
    let index = 0;
    this.postgresText = sqliteText.replace(/\?/g, () => `$${++index}`);
  }

  async run<Row = unknown>(db: Db, parameters: readonly unknown[]): Promise<Row[]> {
    const text = isPostgres(db) ? this.postgresText : this.sqliteText;
    return (await db.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]))).rows;
  }
}

/**
 * Inserts many rows, skipping those that conflict with a unique key (`ON CONFLICT DO NOTHING`), and
 * returns the `returning` columns of the rows inserted. The same statement shapes as bulkInsert
 * (src/store/bulk-insert.ts): `json_each` of one JSON parameter on SQLite, `unnest` arrays on PostgreSQL.
 */
export async function insertNewRows<Row>(
  db: Db,
  spec: Omit<BulkTable, 'conflictKey'>,
  rows: readonly (readonly unknown[])[],
  returning: readonly string[],
): Promise<Row[]> {
  const inserted: Row[] = [];
  const postgres = isPostgres(db);
  const columns = spec.columns.map(quote).join(', ');
  const tail = ` ON CONFLICT DO NOTHING RETURNING ${returning.map(quote).join(', ')}`;
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const chunk = rows.slice(start, start + ROWS_PER_STATEMENT);
    const query = postgres
      ? CompiledQuery.raw(
          `INSERT INTO ${quote(spec.table)} (${columns}) SELECT * FROM unnest(${spec.pgTypes.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})${tail}`,
          spec.columns.map((_, column) => chunk.map((row) => row[column] ?? null)),
        )
      : CompiledQuery.raw(
          // WHERE true: SQLite's parser needs it before ON CONFLICT after a SELECT.
          `INSERT INTO ${quote(spec.table)} (${columns}) SELECT ${spec.columns.map((_, index) => `value->>${index}`).join(', ')} FROM json_each(?) WHERE true${tail}`,
          [JSON.stringify(chunk)],
        );
    inserted.push(...(await db.executeQuery<Row>(query)).rows);
  }
  return inserted;
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
