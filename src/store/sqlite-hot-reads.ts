import type SQLite from 'better-sqlite3';
import { HOT_SQL, forSqlite, sqliteValues, type SqliteStatementText } from './hot-read-sql.js';
import type { FileWithRankRow, HotReads, UserRow } from './hot-reads.js';

/**
 * The lookups of every document open as prepared statements on a read-only SQLite connection of their
 * own. Going around Kysely saves its per-query work on the hottest path; the separate connection reads
 * only committed data (WAL), so a transaction in flight on the main connection is never seen half done.
 */
export class SqliteHotReads implements HotReads {
  private readonly user: Prepared<UserRow>;
  private readonly grant: Prepared<{ rank: number | null }>;
  private readonly fileAndGrant: Prepared<FileWithRankRow>;

  constructor(reader: SQLite.Database) {
    this.user = prepare(reader, HOT_SQL.userById);
    this.grant = prepare(reader, HOT_SQL.grantedRank);
    this.fileAndGrant = prepare(reader, HOT_SQL.fileWithGrant);
  }

  userById(userId: string): UserRow | undefined {
    return this.user.get(userId);
  }

  grantedRank(fileId: string, userId: string): number | null {
    return this.grant.get(fileId, userId)?.rank ?? null;
  }

  fileWithGrant(fileId: string, userId: string): FileWithRankRow | undefined {
    return this.fileAndGrant.get(fileId, userId);
  }
}

interface Prepared<R> {
  get(...parameters: string[]): R | undefined;
}

function prepare<R>(reader: SQLite.Database, text: string): Prepared<R> {
  const statement: SqliteStatementText = forSqlite(text);
  const prepared = reader.prepare<unknown[], R>(statement.text);
  return { get: (...parameters) => prepared.get(...sqliteValues(statement, parameters)) };
}
