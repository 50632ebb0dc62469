import type { Db } from '../schema/schema.js';

/**
 * What readers of a fixed statement (src/store/statements/statement.ts) use of it: its text in each placeholder form
 * and a run through Kysely. A type of its own so that the dialects' prepared reads need not import the
 * statement module, which asks the dialect how to bind.
 */
export interface FixedStatement {
  /** The text with numbered placeholders (`$1`, `$2`, …). */
  readonly postgresText: string;
  /** The text with positional placeholders (`?`). */
  readonly sqliteText: string;
  /** The parameters in the order the positional text binds them. */
  sqliteValues(parameters: readonly unknown[]): unknown[];
  /** Runs the statement through Kysely and returns its rows. */
  run<Row = unknown>(db: Db, parameters: readonly unknown[]): Promise<Row[]>;
}
