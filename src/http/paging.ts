import { Type } from 'typebox';
import type { PageRequest } from '../directory/types.js';

/**
 * The paging rules of the member lists (teams, departments): pages count from 1 and `page=0` is taken
 * as the first page; a negative or non-numeric `page` or `pageSize` is a 400 (the schema says so);
 * a `pageSize` above the cap is served as the cap, never refused.
 */
export const MAX_PAGE_SIZE = 100;

/** The highest page number of the member lists (far past any real list, well within every integer type). */
export const MAX_PAGE = 1_000_000;

/** `GET /files`: `limit` defaults to 20; above 100 it is served as 100. */
export const DEFAULT_FILE_LIMIT = 20;
export const MAX_FILE_LIMIT = 100;

/** `GET /teams/{teamId}/members` without paging returns at most this many members (name order). */
export const MAX_UNPAGED_MEMBERS = 5000;

/** Query properties of a paged member list; coerced from text, so `page=abc` fails validation. */
export const pageQueryProperties = (defaultPageSize: number) => ({
  page: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_PAGE, description: `page number, from 1 (0 is taken as 1), at most ${MAX_PAGE}` })),
  pageSize: Type.Optional(
    Type.Integer({ minimum: 1, description: `page size, default ${defaultPageSize}, at most ${MAX_PAGE_SIZE} (larger values are served as ${MAX_PAGE_SIZE})` }),
  ),
});

/** The rows of one page: `page` from 1 (0 and absent mean the first), `pageSize` defaulted and capped. */
export function pageRequest(page: number | undefined, pageSize: number | undefined, defaultPageSize: number): PageRequest {
  const size = Math.min(Math.max(1, pageSize ?? defaultPageSize), MAX_PAGE_SIZE);
  const index = Math.max(1, page ?? 1);
  return { offset: (index - 1) * size, limit: size };
}
