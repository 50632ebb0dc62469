import { quoteIdentifier } from '../statements/bulk-table.js';
import type { OpenedConnections } from '../dialect/dialect.js';
import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/**
 * Rows of each index read when the statistics are kept up (`keepStatistics`): enough that a column with
 * a few values over a million rows (a grant's principal kind) is seen as far less selective than a file
 * id, at about 0.15 s for the bench company (100,000 people, a million grants) and 0.5 s for a 1 GB file.
 */
const ANALYSIS_LIMIT = 50_000;

/**
 * SQLite: ANALYZE of `tables` after a bulk load, every row read (about 0.6 s for the bench company).
 * Without statistics SQLite's planner takes any equality on an indexed column as selective, and picked
 * the index of a grant's principal kind (a third of a million grants each) over the file ids of a list:
 * a re-import read for 76 s what now takes 7 s; the management API's collaborators of a file took 0.1 s.
 */
export async function refreshStatistics(db: Db, tables: readonly string[]): Promise<void> {
  for (const table of tables) await new Statement(`ANALYZE ${quoteIdentifier(table)}`).run(db, []);
}

/**
 * SQLite: analyses the tables never analysed or grown or shrunk a lot since (`PRAGMA optimize`, sampled:
 * `ANALYSIS_LIMIT`), and loads the statistics as they now are into this connection, those another process
 * wrote too (an import). A serving process runs it at start and every hour. Other connections (the
 * read-only one) load statistics with the schema: when it changes, as when they are first written.
 */
export async function keepStatistics(opened: OpenedConnections): Promise<void> {
  await new Statement(`PRAGMA analysis_limit = ${ANALYSIS_LIMIT}`).run(opened.db, []);
  await new Statement('PRAGMA optimize = 0x10002').run(opened.db, []);
  await new Statement('ANALYZE sqlite_schema').run(opened.db, []);
}
