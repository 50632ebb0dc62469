import type { Kysely } from 'kysely';
import type { Database } from '../schema/schema.js';
import type { FixedStatement } from './fixed-statement.js';

/**
 * Fixed statements (src/store/statements/statement.ts) run as prepared statements, for the reads of every request:
 * better-sqlite3 statements on an SQLite file's read-only connection (store/sqlite/prepared-reads.ts),
 * named statements on PostgreSQL (store/postgres/prepared-reads.ts), planned once per connection.
 */
export interface PreparedReads {
  /** The rows of the statement with these parameters (synchronous on SQLite). */
  rows<R>(statement: FixedStatement, parameters: readonly unknown[]): R[] | Promise<R[]>;
}

/** Through Kysely, prepared by nothing: for `sqlite::memory:` (another connection would see another database). */
export function kyselyReads(db: Kysely<Database>): PreparedReads {
  return { rows: <R>(statement: FixedStatement, parameters: readonly unknown[]) => statement.run<R>(db, parameters) };
}
