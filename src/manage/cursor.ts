import { Type, type TObject, type TSchema } from 'typebox';
import { badRequest } from '../http/errors.js';
import type { TailPosition } from '../store/statements/tail-order.js';

/**
 * The management listings' paging (contracts.md): `?limit=N&cursor=C` answers `{ items, nextCursor }`.
 * A cursor is opaque to the caller: the position after the last item shown.
 */
export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

export const pageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT, description: `items per page, at most ${MAX_LIMIT}` })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "the previous page's nextCursor" })),
};

export const pageOf = <T extends TSchema>(item: T): TObject => Type.Object({ items: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) });

/** The cursor after a row of a tailed listing (its sequence number and, on PostgreSQL, its transaction id). */
export function encodeTailCursor(position: TailPosition | null): string | null {
  return position === null ? null : Buffer.from(position.xid === null ? `p${position.seq}` : `p${position.seq}.${position.xid}`).toString('base64url');
}

/** The position a tailed listing's cursor stands for (undefined without one); 400 for one this API did not give out. */
export function decodeTailCursor(cursor: string | undefined): TailPosition | undefined {
  if (cursor === undefined) return undefined;
  const match = /^p(\d{1,15})(?:\.(\d{1,20}))?$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw badRequest('cursor is not one this API gave out', 'invalid_cursor');
  return { seq: Number(match[1]), xid: match[2] ?? null };
}

export function encodeCursor(position: number | null): string | null {
  return position === null ? null : Buffer.from(`p${position}`).toString('base64url');
}

/** The position a cursor stands for (0 without one); a cursor this API did not give out is a 400. */
export function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^p(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw badRequest('cursor is not one this API gave out', 'invalid_cursor');
  return Number(match[1]);
}
