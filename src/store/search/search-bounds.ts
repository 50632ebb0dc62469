import { SEARCH_COUNT_CAP } from '../../directory/search-page.js';

/**
 * The most work one search may do, whatever the keyword (docs/search.md "Bounds"). Each is a number
 * of rows read; tests lower them to reach every plan with a small directory.
 */
export interface SearchBounds {
  /** Index matches of users or departments read per keyword (then ranked; the first cap kept). */
  peopleScan: number;
  /** Index matches of files read per keyword, or newest files for the empty keyword. */
  fileScan: number;
  /**
   * A searcher who may read at most this many files, for a keyword with more than `fileScan` matches:
   * their readable files are matched one by one instead (exact), not the first `fileScan` matches.
   */
  readableScan: number;
  /** How long a file list may keep an order by `updatedAt` that FileContent events moved since. */
  fileListTtlMs: number;
}

export const SEARCH_BOUNDS: SearchBounds = Object.freeze({
  peopleScan: 5_000,
  fileScan: 20_000,
  readableScan: 2_000,
  fileListTtlMs: 300_000,
});

/** The count a kind reports, and whether more may match (the `countCapped` flag of the wrapper). */
export function cappedCount(found: number, more: boolean): { total: number; capped: boolean } {
  return { total: Math.min(found, SEARCH_COUNT_CAP), capped: more || found > SEARCH_COUNT_CAP };
}
