import { Type, type TSchema } from 'typebox';
import type { PageRequest } from '../directory/types.js';
import type { TailPosition } from '../store/statements/tail-order.js';
import { badRequest } from './errors.js';

/**
 * Every paging rule of the HTTP interfaces, in one place: the platform's callbacks page member lists by
 * number (`page`, `pageSize`) and files by `limit`; the management API pages every listing with an opaque
 * cursor (`limit`, `cursor`, answering `{ items, nextCursor }`). SCIM pages as RFC 7644 says
 * (`startIndex`, `count`), in src/scim/.
 */

// ---- The platform's callbacks: page numbers ----

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

// ---- The management API's listings: a cursor ----

/**
 * The management API's one paging scheme (contracts.md, "Management API listings"): `?limit=N&cursor=C`
 * answers `{ items, nextCursor }`. A cursor is opaque to callers: the position after the last item shown
 * (an id for the directory's lists, a sequence number for logs), as base64url JSON.
 */
export const DEFAULT_LIST_LIMIT = 50;
/** What an id may be (no control characters: PostgreSQL's text cannot hold NUL). */
// eslint-disable-next-line no-control-regex
const ID_TEXT = /^[^\u0000-\u001F\u007F]+$/;
export const MAX_LIST_LIMIT = 500;

/** The query properties of a paged listing. */
export const listQueryProperties = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT, description: `page size, at most ${MAX_LIST_LIMIT}` })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'nextCursor of the previous page' })),
};

/** The body of one page of `item`s. */
export const listPageSchema = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page' }) });

/** The cursor of the page after `position` (the key of the last item shown), or null when there is none. */
export function encodeCursor(position: string | number | null): string | null {
  return position === null ? null : Buffer.from(JSON.stringify({ after: position }), 'utf8').toString('base64url');
}

/** What a cursor this API gave out continues after (undefined for anything else). */
function positionIn(cursor: string): unknown {
  try {
    return (JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown }).after;
  } catch {
    return undefined;
  }
}

/** The cursor after a row of a tailed listing (src/store/statements/tail-order.ts): its sequence number and, on PostgreSQL, its transaction id. */
export function encodeTailCursor(position: TailPosition | null): string | null {
  return position === null ? null : encodeCursor(position.xid === null ? position.seq : `${position.seq}.${position.xid}`);
}

/** The position a tailed listing's cursor continues after (undefined: from the start); 400 `invalid_cursor` for one this API did not give out. */
export function decodeTailCursor(cursor: string | undefined): TailPosition | undefined {
  if (cursor === undefined) return undefined;
  const position = positionIn(cursor);
  if (Number.isSafeInteger(position) && (position as number) >= 0) return { seq: position as number, xid: null };
  const match = typeof position === 'string' ? /^(\d{1,15})\.(\d{1,20})$/.exec(position) : null;
  if (!match) throw badRequest('cursor is not one this API gave out', 'invalid_cursor');
  return { seq: Number(match[1]), xid: match[2]! };
}

/** The position a cursor continues after (undefined: from the start); 400 `invalid_cursor` for one this API did not give out. */
export function decodeCursor(cursor: string | undefined, kind: 'string'): string | undefined;
export function decodeCursor(cursor: string | undefined, kind: 'number'): number | undefined;
export function decodeCursor(cursor: string | undefined, kind: 'string' | 'number'): string | number | undefined {
  if (cursor === undefined) return undefined;
  const position = positionIn(cursor);
  const valid = kind === 'number' ? Number.isSafeInteger(position) && (position as number) >= 0 : typeof position === 'string' && ID_TEXT.test(position);
  if (!valid) throw badRequest('cursor is not one this API gave out', 'invalid_cursor');
  return position as string | number;
}
