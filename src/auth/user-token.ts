import { epochSeconds, signHs256, verifyHs256 } from './jwt.js';

/** The outcome of reading a user token; `expired` still names the user (events accept late tokens). */
export type UserTokenResult =
  | { ok: true; userId: string; expiresAt: number }
  | { ok: false; reason: 'malformed' | 'forged' | 'expired'; userId?: string; expiresAt?: number };

/** Issues a user token: HS256 with TOKEN_SECRET, `sub` = user id, `exp` = now + ttl. */
export function mintUserToken(userId: string, secret: string, ttlSeconds: number, now: number = Date.now()): string {
  const iat = epochSeconds(now);
  return signHs256({ sub: userId, iat, exp: iat + ttlSeconds }, secret);
}

/**
 * Verifies a user token's signature and expiry; does not look the user up. `secrets`: TOKEN_SECRET, then
 * TOKEN_SECRET_PREVIOUS during a key rotation (see `tokenSecrets`).
 */
export async function verifyUserToken(token: string, secrets: string | readonly (string | undefined)[], now: number = Date.now()): Promise<UserTokenResult> {
  const decoded = await verifyHs256(token, secrets);
  if (!decoded.ok) return { ok: false, reason: decoded.failure === 'malformed' ? 'malformed' : 'forged' };
  const { sub, exp } = decoded.claims;
  if (typeof sub !== 'string' || sub === '' || typeof exp !== 'number') return { ok: false, reason: 'malformed' };
  if (exp <= epochSeconds(now)) return { ok: false, reason: 'expired', userId: sub, expiresAt: exp };
  return { ok: true, userId: sub, expiresAt: exp };
}
