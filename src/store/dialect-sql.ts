import type { RawBuilder } from 'kysely';
import type { SearchKeyword } from '../directory/search-keyword.js';
import type { MatchKind } from './search/match-kind.js';

/**
 * The SQL that differs between the two dialects, for the read side of the store (store/sqlite/ and
 * store/postgres/ hold the two implementations under the same file names).
 */
export interface DialectSql {
  readonly name: 'sqlite' | 'postgres';
  /** A list of ids bound as one parameter, usable as `… IN ${idList('$1')}`. */
  idList(placeholder: string): string;
  /** The value to bind to the placeholder of `idList`. */
  idListValue(ids: readonly string[]): unknown;
  /**
   * The rows of `kind` (as `alias`) that the search index lets through for a non-empty keyword: a FROM
   * item and a condition for the WHERE clause. Every row `matchTier` matches is among them (a few more
   * may be; the caller computes the tier). SQLite: FTS5 trigram tables and short-gram tables;
   * PostgreSQL: pg_trgm and short-gram GIN indexes (migrations 003 and 006).
   */
  indexMatches(kind: MatchKind, alias: string, keyword: SearchKeyword): { from: RawBuilder<unknown>; where: RawBuilder<unknown> };
}
