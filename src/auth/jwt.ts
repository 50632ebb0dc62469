import { createHmac, timingSafeEqual, webcrypto } from 'node:crypto';
import { compactVerify, decodeProtectedHeader, errors } from 'jose';

/** Claims of a compact JWT; only the ones collab-host reads are typed. */
export interface JwtClaims {
  exp?: number;
  iat?: number;
  sub?: string;
  [claim: string]: unknown;
}

export interface JwtHeader {
  alg?: unknown;
  typ?: unknown;
  kid?: unknown;
}

/** Why a compact JWT was refused, as a stable code. */
export type JwtFailure = 'malformed' | 'algorithm' | 'signature';

export type DecodedJwt = { ok: true; header: JwtHeader; claims: JwtClaims } | { ok: false; failure: JwtFailure };

function base64url(input: Buffer | string): string {
  return Buffer.from(input).toString('base64url');
}

/**
 * Signs `claims` as a compact HS256 JWT with `secret` (UTF-8). Kept synchronous on node:crypto (three
 * lines of HMAC): jose signs only asynchronously, and every caller of the minting functions is
 * synchronous. What jose verifies here, tests check jose's own signer agrees with (test/auth/jwt.test.ts).
 */
export function signHs256(claims: JwtClaims, secret: string, header: Record<string, string> = {}): string {
  const head = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', ...header }));
  const body = base64url(JSON.stringify(claims));
  const signature = hs256Mac(head, body, secret).toString('base64url');
  return `${head}.${body}.${signature}`;
}

/** The HS256 MAC of a compact JWS's signing input, `head.body`: what signing writes and checking recomputes. */
function hs256Mac(head: string, body: string, secret: string): Buffer {
  return createHmac('sha256', secret).update(`${head}.${body}`).digest();
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** Imported HMAC keys by secret: importing is the costly part of a WebCrypto verification. */
const HMAC_KEYS = new Map<string, Promise<webcrypto.CryptoKey>>();

function hmacKey(secret: string): Promise<webcrypto.CryptoKey> {
  let key = HMAC_KEYS.get(secret);
  if (!key) {
    key = webcrypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    // A handful of configured keys live here (current and previous); never one per request.
    if (HMAC_KEYS.size >= 16) HMAC_KEYS.clear();
    HMAC_KEYS.set(secret, key);
  }
  return key;
}

/**
 * Verifies a compact JWS (HS256 only: `none` and every other algorithm refused; a header with `crit` or
 * `b64` through jose's `compactVerify`, any other by `hmacMatches`) against each of `secrets` in turn (the current key first, then a previous one during a key
 * rotation), then returns header and claims. Time claims are the caller's to check, with its own clock.
 */
export async function verifyHs256(token: string, secrets: string | readonly (string | undefined)[]): Promise<DecodedJwt> {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, failure: 'malformed' };
  const [head, body, signature] = parts as [string, string, string];
  // An empty signature segment is let through to the algorithm check: `alg: none` tokens have one.
  if (!SEGMENT.test(head) || !SEGMENT.test(body) || !(signature === '' || SEGMENT.test(signature))) return { ok: false, failure: 'malformed' };
  let header: JwtHeader;
  let claims: JwtClaims;
  try {
    header = decodeProtectedHeader(token) as JwtHeader;
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as JwtClaims;
  } catch {
    return { ok: false, failure: 'malformed' };
  }
  if (!isObject(header) || !isObject(claims)) return { ok: false, failure: 'malformed' };
  if (header.alg !== 'HS256') return { ok: false, failure: 'algorithm' };
  // Decoding ignores a last character's spare bits, so several spellings of one signature decode alike:
  // only the canonical one is accepted, or an altered signature would still verify.
  const given = Buffer.from(signature, 'base64url');
  if (given.toString('base64url') !== signature) return { ok: false, failure: 'signature' };
  const plain = !('crit' in header) && !('b64' in header);
  for (const secret of typeof secrets === 'string' ? [secrets] : secrets) {
    if (secret === undefined) continue;
    if (plain) {
      if (hmacMatches(head, body, given, secret)) return { ok: true, header, claims };
      continue;
    }
    try {
      await compactVerify(token, await hmacKey(secret), { algorithms: ['HS256'] });
      return { ok: true, header, claims };
    } catch (error) {
      if (!(error instanceof errors.JWSSignatureVerificationFailed)) return { ok: false, failure: 'malformed' };
    }
  }
  return { ok: false, failure: 'signature' };
}

/**
 * The HS256 check for a header without `crit` or `b64`, the only members that change what jose verifies:
 * the HMAC of `head.body`, compared in constant time, on node:crypto synchronously. jose verifies through
 * WebCrypto, whose asynchronous job per call cost more than a whole event's intake; for such headers its
 * answer is this one (test/auth/jwt.test.ts checks both agree). Other headers still go through jose.
 */
function hmacMatches(head: string, body: string, given: Buffer, secret: string): boolean {
  const expected = hs256Mac(head, body, secret);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Seconds since the epoch, the unit of `exp` and `iat`. */
export function epochSeconds(now: number = Date.now()): number {
  return Math.floor(now / 1000);
}
