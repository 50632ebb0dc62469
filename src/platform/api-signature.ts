import { createHash, randomUUID } from 'node:crypto';
import { epochSeconds, signHs256 } from '../auth/jwt.js';
import { LICENSE_SCOPE, LICENSE_TTL_SECONDS, type AppCredentials } from '../auth/platform-signature.js';

/**
 * The two signature scopes of the platform API (platform-api.md section 1): `default` (no scope claim)
 * for every file, document, table, preview, upload and AI call; `license` for app details, the callback
 * URL and the seats.
 */
export type ApiScope = 'default' | 'license';

/** Lifetime of an unscoped API signature. The kit uses 24 h; one is minted per call, so an hour is plenty. */
export const DEFAULT_API_SIGNATURE_TTL_SECONDS = 60 * 60;

/**
 * A signature for one call to the platform API: HS256 with the app secret, header `kid` = appId, `exp`,
 * `iat` now, and `version` when a callback version is configured. License signatures carry
 * `scope: license`, live at most 4 minutes and are single use on the platform, so each one gets a random
 * `jti`: two calls in the same second would otherwise carry the same text.
 */
export function mintApiSignature(credentials: AppCredentials, scope: ApiScope, options: { version?: string; now?: number } = {}): string {
  const iat = epochSeconds(options.now);
  const claims: Record<string, unknown> =
    scope === 'license' ? { exp: iat + LICENSE_TTL_SECONDS, iat, scope: LICENSE_SCOPE, jti: randomUUID() } : { exp: iat + DEFAULT_API_SIGNATURE_TTL_SECONDS, iat };
  if (options.version !== undefined) claims.version = options.version;
  return signHs256(claims, credentials.appSecret, { kid: credentials.appId });
}

/**
 * `X-Weboffice-User-Uuid` / `userUuid`: the lowercase hex SHA-256 of the user id, as the platform's demo
 * sends it with v2 callbacks (platform-api.md section 2).
 */
export function userUuid(userId: string): string {
  return createHash('sha256').update(userId).digest('hex');
}
