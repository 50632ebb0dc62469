import { createHmac, timingSafeEqual } from 'node:crypto';

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

/** Signs `claims` as a compact HS256 JWT with `secret` (UTF-8). */
export function signHs256(claims: JwtClaims, secret: string, header: Record<string, string> = {}): string {
  const head = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', ...header }));
  const body = base64url(JSON.stringify(claims));
  const signature = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${signature}`;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/**
 * Checks the form, the algorithm (HS256 only: `none` and every other value refused) and the HMAC
 * (compared in constant time), then returns header and claims. Time claims are the caller's to check.
 */
export function verifyHs256(token: string, secret: string): DecodedJwt {
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, failure: 'malformed' };
  const [head, body, signature] = parts as [string, string, string];
  // An empty signature segment is let through to the algorithm check: `alg: none` tokens have one.
  if (!SEGMENT.test(head) || !SEGMENT.test(body) || !(signature === '' || SEGMENT.test(signature))) return { ok: false, failure: 'malformed' };
  let header: JwtHeader;
  let claims: JwtClaims;
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as JwtHeader;
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as JwtClaims;
  } catch {
    return { ok: false, failure: 'malformed' };
  }
  if (!isObject(header) || !isObject(claims)) return { ok: false, failure: 'malformed' };
  if (header.alg !== 'HS256') return { ok: false, failure: 'algorithm' };
  // Compare the text, not decoded bytes: base64url decoding ignores a last character's spare bits, so
  // several spellings decode alike and an altered signature would otherwise still verify.
  const expected = Buffer.from(createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url'));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, failure: 'signature' };
  return { ok: true, header, claims };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Seconds since the epoch, the unit of `exp` and `iat`. */
export function epochSeconds(now: number = Date.now()): number {
  return Math.floor(now / 1000);
}
