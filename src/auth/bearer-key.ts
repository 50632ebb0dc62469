import { createHash, timingSafeEqual } from 'node:crypto';

export type BearerCheck = 'ok' | 'missing' | 'invalid';

/**
 * Checks `Authorization: Bearer <key>` against one configured key in constant time: both sides are
 * hashed first, so the comparison leaks neither the key's content nor its length.
 */
export function bearerKeyCheck(key: string): (authorization: string | undefined) => BearerCheck {
  const expected = digest(key);
  return (authorization) => {
    const match = typeof authorization === 'string' ? /^Bearer\s+(.+)$/i.exec(authorization) : null;
    if (!match) return 'missing';
    return timingSafeEqual(digest(match[1] as string), expected) ? 'ok' : 'invalid';
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
