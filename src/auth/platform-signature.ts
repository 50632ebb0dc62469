import { randomUUID } from 'node:crypto';
import { epochSeconds, signHs256, verifyHs256 } from './jwt.js';

/** Claims the platform signature may carry (contracts.md, "Platform signature"). */
export interface SignatureClaims {
  exp: number;
  iat?: number;
  scope?: string;
  fileId?: string;
  userId?: string;
}

export interface AppCredentials {
  appId: string;
  /** Signs and verifies. */
  appSecret: string;
  /** APP_SECRET_PREVIOUS during a key rotation: still verifies, never signs. */
  previousAppSecret?: string | undefined;
  /** SIGNATURE_MAX_LIFETIME: the longest a received signature may live (seconds); absent: the default. */
  maxLifetimeSeconds?: number | undefined;
}

/** Maximum difference between `iat` and server time. */
export const IAT_TOLERANCE_SECONDS = 5 * 60;
/**
 * The longest lifetime of a received signature by default (SIGNATURE_MAX_LIFETIME): the platform's kit
 * signs its API calls for 24 hours and the conformance kit its callbacks for 2 minutes, so a signature
 * that expires more than a day ahead (ten years, say) was not made by either, and would be a key for good.
 */
export const DEFAULT_SIGNATURE_MAX_LIFETIME_SECONDS = 24 * 3600;
/** License-scope signatures for the platform API live at most this long (the platform refuses 5 minutes). */
export const LICENSE_TTL_SECONDS = 4 * 60;
/** Scope of the signature collab-host mints for the platform API (contracts.md). */
export const LICENSE_SCOPE = 'license';
/** Scope of the signature collab-host hands to a browser for the SDK's `connect()` (editor config). */
export const EDITOR_SCOPE = 'editor';
/**
 * Scopes collab-host mints for use elsewhere. A signature carrying one of them left this service for the
 * platform API or a browser, so it is never accepted back as the platform's signature on a callback:
 * otherwise anyone holding an editor config could call the signed callbacks.
 */
export const OUTBOUND_SCOPES: readonly string[] = [LICENSE_SCOPE, EDITOR_SCOPE];

export type SignatureFailure = 'malformed' | 'algorithm' | 'signature' | 'kid' | 'expired' | 'lifetime' | 'missing-exp' | 'iat' | 'scope' | 'file-mismatch' | 'user-mismatch';

export type SignatureResult = { ok: true; claims: SignatureClaims } | { ok: false; failure: SignatureFailure };

/** What the request binds the signature to: the path's fileId, the by-user-id query's userId. */
export interface SignatureBinding {
  fileId?: string;
  userId?: string;
  /** Scopes that make the signature unacceptable here (a callback refuses OUTBOUND_SCOPES). */
  refusedScopes?: readonly string[];
}

/** Mints a platform signature with the application's credentials. */
export function mintSignature(credentials: AppCredentials, options: { ttlSeconds: number; fileId?: string; userId?: string; scope?: string; now?: number }): string {
  const iat = epochSeconds(options.now);
  const claims: SignatureClaims = { exp: iat + options.ttlSeconds, iat };
  if (options.scope !== undefined) claims.scope = options.scope;
  if (options.fileId !== undefined) claims.fileId = options.fileId;
  if (options.userId !== undefined) claims.userId = options.userId;
  return signHs256({ ...claims }, credentials.appSecret, { kid: credentials.appId });
}

/**
 * A fresh license-scope signature for one call to the platform API (single use, at most 4 minutes).
 * A random `jti` makes every one distinct: two calls within one second would otherwise carry the same
 * text, and the platform refuses a license signature it has seen before.
 */
export function mintLicenseSignature(credentials: AppCredentials, now?: number): string {
  const iat = epochSeconds(now);
  return signHs256({ exp: iat + LICENSE_TTL_SECONDS, iat, scope: LICENSE_SCOPE, jti: randomUUID() }, credentials.appSecret, {
    kid: credentials.appId,
  });
}

/**
 * Verifies a platform signature as contracts.md states: HS256 only, `kid` equal to APP_ID when present,
 * `exp` required and in the future, `iat` within 5 minutes when present, a lifetime within
 * `maxLifetimeSeconds` (counted from `iat` when present, else from now, with the same 5 minutes of clock
 * skew: a signature without `iat` is bounded by how far ahead it expires), and `fileId`/`userId` bound to
 * the request when the binding names them.
 */
export async function verifySignature(token: string, credentials: AppCredentials, binding: SignatureBinding = {}, now: number = Date.now()): Promise<SignatureResult> {
  const decoded = await verifyHs256(token, [credentials.appSecret, credentials.previousAppSecret]);
  if (!decoded.ok) return { ok: false, failure: decoded.failure };
  const { header, claims } = decoded;
  if (header.kid !== undefined && header.kid !== credentials.appId) return { ok: false, failure: 'kid' };
  const nowSeconds = epochSeconds(now);
  if (claims.exp === undefined) return { ok: false, failure: 'missing-exp' };
  if (typeof claims.exp !== 'number') return { ok: false, failure: 'malformed' };
  if (claims.exp <= nowSeconds) return { ok: false, failure: 'expired' };
  if (claims.iat !== undefined && (typeof claims.iat !== 'number' || Math.abs(claims.iat - nowSeconds) > IAT_TOLERANCE_SECONDS)) {
    return { ok: false, failure: 'iat' };
  }
  const maxLifetime = credentials.maxLifetimeSeconds ?? DEFAULT_SIGNATURE_MAX_LIFETIME_SECONDS;
  const lifetime = typeof claims.iat === 'number' ? claims.exp - claims.iat : claims.exp - nowSeconds - IAT_TOLERANCE_SECONDS;
  if (lifetime > maxLifetime) return { ok: false, failure: 'lifetime' };
  if (typeof claims.scope === 'string' && binding.refusedScopes?.includes(claims.scope)) return { ok: false, failure: 'scope' };
  if (binding.fileId !== undefined && claims.fileId !== binding.fileId) return { ok: false, failure: 'file-mismatch' };
  if (binding.userId !== undefined && claims.userId !== binding.userId) return { ok: false, failure: 'user-mismatch' };
  const result: SignatureClaims = { exp: claims.exp };
  if (typeof claims.iat === 'number') result.iat = claims.iat;
  if (typeof claims.scope === 'string') result.scope = claims.scope;
  if (typeof claims.fileId === 'string') result.fileId = claims.fileId;
  if (typeof claims.userId === 'string') result.userId = claims.userId;
  return { ok: true, claims: result };
}
