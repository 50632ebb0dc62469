import { CompiledQuery } from 'kysely';
import { dialectOf } from '../dialect/dialect.js';
import type { FixedStatement } from './fixed-statement.js';
import type { Db } from '../schema/schema.js';

/**
 * A fixed SQL statement, written once with PostgreSQL's numbered placeholders (`$1`, `$2`, … a number may
 * repeat) and run on either dialect. This is the store's one placeholder scheme: every hand-written
 * statement (hot reads, per-event statements, bulk writes) goes through it, and Kysely's query builder
 * covers the rest. SQLite's driver binds anonymous `?` by position, so the SQLite form repeats a value
 * that the text uses twice. Placeholders must not appear inside string literals of the text.
 */
export class Statement implements FixedStatement {
  /** The text for PostgreSQL: as written. */
  readonly postgresText: string;
  /** The text for SQLite: `?` in place of each `$n`. */
  readonly sqliteText: string;
  /** For each `?` of the SQLite text, in order, the index (0-based) of the parameter it binds. */
  private readonly sqliteOrder: readonly number[];

  constructor(text: string) {
    this.postgresText = text;
    const order: number[] = [];
    this.sqliteText = text.replace(/\$(\d+)/g, (_match, n: string) => {
      order.push(Number(n) - 1);
      return '?';
    });
    this.sqliteOrder = order;
  }

  /** The parameters in the order the SQLite text binds them. */
  sqliteValues(parameters: readonly unknown[]): unknown[] {
    return this.sqliteOrder.map((index) => parameters[index]);
  }

  /** The statement with its parameters, compiled for the dialect of `db`. */
  compile(db: Db, parameters: readonly unknown[]): CompiledQuery {
    return dialectOf(db).placeholders === 'numbered' ? CompiledQuery.raw(this.postgresText, [...parameters]) : CompiledQuery.raw(this.sqliteText, this.sqliteValues(parameters));
  }

  /** Runs the statement through Kysely (inside a transaction when `db` is one) and returns its rows. */
  async run<Row = unknown>(db: Db, parameters: readonly unknown[]): Promise<Row[]> {
    return (await db.executeQuery<Row>(this.compile(db, parameters))).rows;
  }
}
