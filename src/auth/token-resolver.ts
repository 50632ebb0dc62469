import { epochSeconds } from './jwt.js';
import { verifyUserToken, type UserTokenResult } from './user-token.js';

/**
 * Turns the token of `X-Platform-Token` into a user id. The default reads collab-host's own tokens; a host
 * application that issues its own may pass a resolver to `buildApp`.
 */
export type TokenResolver = (token: string) => UserTokenResult | Promise<UserTokenResult>;

type AcceptedToken = Extract<UserTokenResult, { ok: true }>;

/** How many verified tokens the default resolver remembers (about 2 MB of tokens and ids at most). */
export const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

/**
 * collab-host's own tokens. The platform sends the same token with every callback of an open document, so
 * verified tokens are remembered (bounded LRU keyed by the whole token): a hit skips the HMAC and JSON
 * decoding but still checks the expiry. Refusals are not remembered. A token's claims never change, so the
 * cache cannot go stale; whether its user still exists and is active is checked on every request by the guard
 * (src/auth/user-auth.ts), so a deactivated or removed user's remembered token is refused at once. During a
 * key rotation `secrets` holds the current key and the previous one: a restart without the previous key
 * empties the cache, so its tokens stop working then.
 */
export function defaultTokenResolver(secrets: string | readonly (string | undefined)[], now: () => number = Date.now, maxEntries = VERIFIED_TOKEN_CACHE_SIZE): TokenResolver {
  // The accepted result itself is remembered (frozen) and handed out on every hit: no object per request.
  const verified = new Map<string, Readonly<AcceptedToken>>();
  // A hit is answered at once (no promise: the guard awaits only a miss's verification).
  return (token) => {
    const hit = verified.get(token);
    if (hit) {
      if (hit.expiresAt > epochSeconds(now())) {
        verified.delete(token);
        verified.set(token, hit);
        return hit;
      }
      verified.delete(token);
    }
    return verifyAndRemember(token);
  };

  async function verifyAndRemember(token: string): Promise<UserTokenResult> {
    const result = await verifyUserToken(token, secrets, now());
    if (result.ok) {
      while (verified.size >= maxEntries && verified.size > 0) verified.delete(verified.keys().next().value as string);
      if (maxEntries < 1) return result;
      const accepted: AcceptedToken =
        result.linkId === undefined
          ? { ok: true, userId: result.userId, expiresAt: result.expiresAt }
          : { ok: true, userId: result.userId, expiresAt: result.expiresAt, linkId: result.linkId };
      verified.set(token, Object.freeze(accepted));
      return accepted;
    }
    return result;
  }
}
