import type { PageRequest } from './types.js';

/**
 * The paging of POST /search (interface 2.9): pages count from 0; `pageSize` defaults to
 * DEFAULT_SEARCH_PAGE_SIZE and is served as MAX_SEARCH_PAGE_SIZE when larger (never refused).
 */
export const DEFAULT_SEARCH_PAGE_SIZE = 6;
export const MAX_SEARCH_PAGE_SIZE = 50;
/**
 * `count` reports at most this many matches, so no keystroke has to count every row of a large company
 * (an empty keyword matches the whole team). Pages cover the first SEARCH_COUNT_CAP matches only: a page
 * that starts at or past it is empty, so `pageCount` stays exact for the count reported. When more may
 * match than `count` says, the wrapper says so with `countCapped: true`.
 */
export const SEARCH_COUNT_CAP = 1000;

/** The search page wrapper (interface 2.9). */
export interface SearchPage<T> {
  count: number;
  page: number;
  pageSize: number;
  pageCount: number;
  results: T[];
  /** Present (true) when there may be more matches than `count`: past the cap, or a bounded search. */
  countCapped?: true;
}

/** A page number and an effective page size (already capped). */
export interface SearchPaging {
  page: number;
  pageSize: number;
}

export function searchPaging(page: number | undefined, pageSize: number | undefined): SearchPaging {
  return {
    page: Math.max(0, Math.floor(page ?? 0)),
    pageSize: Math.min(MAX_SEARCH_PAGE_SIZE, Math.max(1, Math.floor(pageSize ?? DEFAULT_SEARCH_PAGE_SIZE))),
  };
}

/** The rows a page covers (none past SEARCH_COUNT_CAP). */
export function pageRows(paging: SearchPaging): PageRequest {
  const offset = paging.page * paging.pageSize;
  return { offset, limit: Math.max(0, Math.min(paging.pageSize, SEARCH_COUNT_CAP - offset)) };
}

/**
 * The wrapper of one page: `count` is the number of matches capped at SEARCH_COUNT_CAP, `pageCount` is
 * ceil(count / pageSize) (0 when nothing matched); a page past the end keeps its number and has no results.
 * `more`: the search knows there may be more matches than `count` (a count past the cap says so anyway).
 */
export function searchPage<T>(paging: SearchPaging, count: number, results: T[], more = false): SearchPage<T> {
  const capped = Math.min(count, SEARCH_COUNT_CAP);
  const rows = pageRows(paging);
  const page: SearchPage<T> = {
    count: capped,
    page: paging.page,
    pageSize: paging.pageSize,
    pageCount: Math.ceil(capped / paging.pageSize),
    results: results.slice(0, rows.limit),
  };
  if (more || count > SEARCH_COUNT_CAP) page.countCapped = true;
  return page;
}

/** The wrapper of a kind that was not asked for. */
export function emptySearchPage<T>(paging: SearchPaging): SearchPage<T> {
  return searchPage<T>(paging, 0, []);
}
