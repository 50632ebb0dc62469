import { createHmac, timingSafeEqual } from 'node:crypto';

// The kit speaks only the interface, so it carries its own copy of the tiny HS256 JWT it needs
// (contracts.md, "Platform signature") instead of importing the server's.

export type Claims = Record<string, unknown>;

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A compact HS256 JWT over `claims`, keyed with `secret` (UTF-8); `header` adds fields such as `kid`. */
export function signHs256(claims: Claims, secret: string, header: Record<string, string> = {}): string {
  const head = encode({ alg: 'HS256', typ: 'JWT', ...header });
  const body = encode(claims);
  const mac = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${mac}`;
}

export type Decoded = { ok: true; header: Claims; claims: Claims } | { ok: false; reason: string };

/** Reads a compact JWT and checks its HS256 MAC with `secret`; time claims are left to the caller. */
export function verifyHs256(token: string, secret: string): Decoded {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => /^[A-Za-z0-9_-]+$/.test(part))) return { ok: false, reason: 'not a compact JWT' };
  const [head, body, mac] = parts as [string, string, string];
  let header: unknown;
  let claims: unknown;
  try {
    header = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'not a compact JWT' };
  }
  if (!isRecord(header) || !isRecord(claims)) return { ok: false, reason: 'not a compact JWT' };
  if (header.alg !== 'HS256') return { ok: false, reason: `algorithm ${JSON.stringify(header.alg)} is not HS256` };
  const expected = createHmac('sha256', secret).update(`${head}.${body}`).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'the signature does not verify' };
  return { ok: true, header, claims };
}

/** The claims of a compact JWT without checking anything (used to forge a look-alike token). */
export function peekClaims(token: string): Claims | undefined {
  const body = token.split('.')[1];
  if (body === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    return isRecord(claims) ? claims : undefined;
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function epochSeconds(now: number = Date.now()): number {
  return Math.floor(now / 1000);
}

export interface AppCredentials {
  appId: string;
  appSecret: string;
}

/** A platform signature as the platform makes it for callbacks: `kid` = appId, short-lived, bound to file and user. */
export function platformSignature(credentials: AppCredentials, claims: { fileId?: string; userId?: string; scope?: string; ttlSeconds?: number; now?: number } = {}): string {
  const iat = epochSeconds(claims.now);
  const payload: Claims = { iat, exp: iat + (claims.ttlSeconds ?? 120) };
  if (claims.scope !== undefined) payload.scope = claims.scope;
  if (claims.fileId !== undefined) payload.fileId = claims.fileId;
  if (claims.userId !== undefined) payload.userId = claims.userId;
  return signHs256(payload, credentials.appSecret, { kid: credentials.appId });
}
