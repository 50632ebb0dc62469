import { epochSeconds, signHs256, verifyHs256 } from './jwt.js';

/** The outcome of reading a user token; `expired` still names the user (events accept late tokens). */
export type UserTokenResult =
  | { ok: true; userId: string; expiresAt: number; linkId?: string }
  | { ok: false; reason: 'malformed' | 'forged' | 'expired' | 'not_yet_valid'; userId?: string; expiresAt?: number };

/** Clock skew allowed on a token's `nbf` (not before): one minute. */
export const NBF_SKEW_SECONDS = 60;

/** Issues a user token: HS256 with TOKEN_SECRET, `sub` = user id, `exp` = now + ttl. */
export function mintUserToken(userId: string, secret: string, ttlSeconds: number, now: number = Date.now()): string {
  const iat = epochSeconds(now);
  return signHs256({ sub: userId, iat, exp: iat + ttlSeconds }, secret);
}

/**
 * Issues a guest's token (src/auth/guest-sessions.ts): like a user token, plus `lnk`, the share link it was
 * given through; it expires at `expiresAt` (epoch seconds), which the caller keeps within the link's life.
 */
export function mintGuestToken(guestId: string, linkId: string, secret: string, expiresAt: number, now: number = Date.now()): string {
  return signHs256({ sub: guestId, lnk: linkId, iat: epochSeconds(now), exp: expiresAt }, secret);
}

/**
 * Verifies a user token's signature, expiry and `nbf` (a token not valid yet is refused, beyond a minute
 * of clock skew); does not look the user up. `secrets`: TOKEN_SECRET, then
 * TOKEN_SECRET_PREVIOUS during a key rotation (see `tokenSecrets`).
 */
export async function verifyUserToken(token: string, secrets: string | readonly (string | undefined)[], now: number = Date.now()): Promise<UserTokenResult> {
  const decoded = await verifyHs256(token, secrets);
  if (!decoded.ok) return { ok: false, reason: decoded.failure === 'malformed' ? 'malformed' : 'forged' };
  const { sub, exp, nbf, lnk } = decoded.claims;
  if (typeof sub !== 'string' || sub === '' || typeof exp !== 'number') return { ok: false, reason: 'malformed' };
  if (nbf !== undefined && typeof nbf !== 'number') return { ok: false, reason: 'malformed' };
  if (lnk !== undefined && typeof lnk !== 'string') return { ok: false, reason: 'malformed' };
  if (typeof nbf === 'number' && nbf > epochSeconds(now) + NBF_SKEW_SECONDS) return { ok: false, reason: 'not_yet_valid', userId: sub };
  if (exp <= epochSeconds(now)) return { ok: false, reason: 'expired', userId: sub, expiresAt: exp };
  return typeof lnk === 'string' ? { ok: true, userId: sub, expiresAt: exp, linkId: lnk } : { ok: true, userId: sub, expiresAt: exp };
}
