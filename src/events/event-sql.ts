import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { isPostgres } from '../store/dialect.js';
import type { Database } from '../store/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

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
