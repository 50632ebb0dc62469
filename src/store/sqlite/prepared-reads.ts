import type SQLite from 'better-sqlite3';
import type { PreparedReads } from '../statements/prepared-reads.js';
import type { FixedStatement } from '../statements/fixed-statement.js';

/**
 * Fixed statements prepared once on a read-only SQLite connection of their own. Going around Kysely saves
 * its per-query work on the hottest paths; the separate connection reads only committed data (WAL), so a
 * transaction in flight on the main connection is never seen half done.
 */
export class SqlitePreparedReads implements PreparedReads {
  private readonly prepared = new Map<FixedStatement, SQLite.Statement>();

  constructor(private readonly reader: SQLite.Database) {}

  rows<R>(statement: FixedStatement, parameters: readonly unknown[]): R[] {
    let prepared = this.prepared.get(statement);
    if (!prepared) {
      prepared = this.reader.prepare(statement.sqliteText);
      this.prepared.set(statement, prepared);
    }
    return prepared.all(...statement.sqliteValues(parameters)) as R[];
  }
}
