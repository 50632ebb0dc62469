import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a secret someone sent equals the expected one, in constant time. Both sides are hashed first,
 * so the comparison has equal lengths and leaks neither the content nor the length of either.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
