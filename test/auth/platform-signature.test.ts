import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signHs256 } from '../../src/auth/jwt.js';
import { mintLicenseSignature, mintSignature, OUTBOUND_SCOPES, verifySignature } from '../../src/auth/platform-signature.js';

const credentials = { appId: 'test-app', appSecret: 'test-app-secret-0123456789' };
const now = Date.UTC(2024, 2, 1, 8, 0, 0);
const nowSeconds = now / 1000;

const sign = (claims: Record<string, unknown>, header: Record<string, string> = { kid: 'test-app' }, secret = credentials.appSecret) => signHs256(claims, secret, header);
const verify = (token: string, binding = {}) => verifySignature(token, credentials, binding, now);

describe('verifySignature (contracts.md, Platform signature)', () => {
  it('accepts a signature minted with the app credentials, with its claims', async () => {
    const token = mintSignature(credentials, { ttlSeconds: 60, fileId: 'f1', userId: 'u1', now });
    expect(await verify(token, { fileId: 'f1', userId: 'u1' })).toEqual({
      ok: true,
      claims: { exp: nowSeconds + 60, iat: nowSeconds, fileId: 'f1', userId: 'u1' },
    });
  });

  it('accepts one without kid and without iat (both optional)', async () => {
    expect((await verify(sign({ exp: nowSeconds + 60 }, {}))).ok).toBe(true);
  });

  it.each([
    ['made with another secret', sign({ exp: nowSeconds + 60 }, { kid: 'test-app' }, 'another-secret'), 'signature'],
    ['with alg none', noneToken({ exp: nowSeconds + 60 }), 'algorithm'],
    ['with alg HS512', hs512Token({ exp: nowSeconds + 60 }), 'algorithm'],
    ['with another kid', sign({ exp: nowSeconds + 60 }, { kid: 'other-app' }), 'kid'],
    ['expired', sign({ exp: nowSeconds - 1 }), 'expired'],
    ['expiring right now', sign({ exp: nowSeconds }), 'expired'],
    ['without exp', sign({ iat: nowSeconds }), 'missing-exp'],
    ['with a text exp', sign({ exp: String(nowSeconds + 60) }), 'malformed'],
    ['issued 10 minutes ago', sign({ exp: nowSeconds + 60, iat: nowSeconds - 600 }), 'iat'],
    ['issued 10 minutes ahead', sign({ exp: nowSeconds + 900, iat: nowSeconds + 600 }), 'iat'],
    ['not a JWT', 'not-a-jwt', 'malformed'],
    ['with a body that is not JSON', `${b64('{"alg":"HS256"}')}.${b64('nope')}.abc`, 'malformed'],
  ])('refuses a signature %s', async (_what, token, failure) => {
    expect(await verify(token)).toEqual({ ok: false, failure });
  });

  it('refuses a tampered payload (fileId changed after signing)', async () => {
    const token = sign({ exp: nowSeconds + 60, fileId: 'f1' });
    const [head, , signature] = token.split('.');
    const forged = `${head}.${b64(JSON.stringify({ exp: nowSeconds + 60, fileId: 'f2' }))}.${signature}`;
    expect(await verify(forged, { fileId: 'f2' })).toEqual({ ok: false, failure: 'signature' });
  });

  it('refuses every other spelling of the signature segment, including ones that decode to the same bytes', async () => {
    const token = sign({ exp: nowSeconds + 60 });
    const last = token.at(-1)!;
    for (const replacement of 'AEIMQUYcgkosw048'.split('').filter((c) => c !== last)) {
      expect((await verify(token.slice(0, -1) + replacement)).ok).toBe(false);
    }
  });

  it('binds fileId and userId to the request', async () => {
    const token = sign({ exp: nowSeconds + 60, fileId: 'f1', userId: 'u1' });
    expect(await verify(token, { fileId: 'f2' })).toEqual({ ok: false, failure: 'file-mismatch' });
    expect(await verify(token, { fileId: 'f1', userId: 'u2' })).toEqual({ ok: false, failure: 'user-mismatch' });
    expect(await verify(sign({ exp: nowSeconds + 60 }), { fileId: 'f1' })).toEqual({ ok: false, failure: 'file-mismatch' });
  });

  it('refuses the scopes collab-host mints for elsewhere when told to', async () => {
    const license = mintLicenseSignature(credentials, now);
    expect((await verify(license)).ok).toBe(true);
    expect(await verify(license, { refusedScopes: OUTBOUND_SCOPES })).toEqual({ ok: false, failure: 'scope' });
  });
});

describe('key rotation (APP_SECRET_PREVIOUS)', () => {
  const old = { appId: 'test-app', appSecret: 'old-app-secret-0123456789' };
  const rotating = { ...credentials, previousAppSecret: old.appSecret };

  it('accepts a signature made with the previous secret while it is configured, and refuses it after', async () => {
    const madeWithOld = mintSignature(old, { ttlSeconds: 60, fileId: 'f1', now });
    expect(await verifySignature(madeWithOld, rotating, { fileId: 'f1' }, now)).toMatchObject({ ok: true, claims: { fileId: 'f1' } });
    expect(await verifySignature(madeWithOld, credentials, { fileId: 'f1' }, now)).toEqual({ ok: false, failure: 'signature' });
  });

  it('keeps every other rule for signatures made with the previous secret', async () => {
    expect(await verifySignature(mintSignature(old, { ttlSeconds: 60, fileId: 'f1', now }), rotating, { fileId: 'f2' }, now)).toEqual({ ok: false, failure: 'file-mismatch' });
    expect(await verifySignature(sign({ exp: nowSeconds - 1 }, { kid: 'test-app' }, old.appSecret), rotating, {}, now)).toEqual({ ok: false, failure: 'expired' });
    expect(await verifySignature(sign({ exp: nowSeconds + 60 }, { kid: 'test-app' }, 'a-third-secret-0123456789'), rotating, {}, now)).toEqual({ ok: false, failure: 'signature' });
  });

  it('mints with the current secret only', async () => {
    const minted = mintSignature(rotating, { ttlSeconds: 60, now });
    expect((await verifySignature(minted, credentials, {}, now)).ok).toBe(true);
    expect((await verifySignature(minted, old, {}, now)).ok).toBe(false);
  });
});

describe('mintLicenseSignature', () => {
  it('is HS256 with kid, scope license, iat now and exp 4 minutes ahead', () => {
    const token = mintLicenseSignature(credentials, now);
    const [head, body] = token.split('.') as [string, string];
    expect(JSON.parse(Buffer.from(head, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT', kid: 'test-app' });
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    expect(claims).toMatchObject({ scope: 'license', iat: nowSeconds, exp: nowSeconds + 240 });
    expect(mintLicenseSignature(credentials, now)).not.toBe(token);
  });
});

function b64(text: string): string {
  return Buffer.from(text).toString('base64url');
}

function noneToken(claims: object): string {
  return `${b64(JSON.stringify({ alg: 'none', typ: 'JWT', kid: 'test-app' }))}.${b64(JSON.stringify(claims))}.`;
}

function hs512Token(claims: object): string {
  const unsigned = `${b64(JSON.stringify({ alg: 'HS512', typ: 'JWT', kid: 'test-app' }))}.${b64(JSON.stringify(claims))}`;
  return `${unsigned}.${createHmac('sha512', credentials.appSecret).update(unsigned).digest('base64url')}`;
}
