import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { signHs256, verifyHs256 } from '../../src/auth/jwt.js';

const SECRET = 'jwt-test-secret-0123456789';
const key = new TextEncoder().encode(SECRET);

describe('HS256 JWTs (verified through jose)', () => {
  it('verifies what jose signs, and jose verifies what collab-host signs', async () => {
    const fromJose = await new SignJWT({ sub: 'u1', exp: 2_000_000_000 }).setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: 'app' }).sign(key);
    expect(await verifyHs256(fromJose, SECRET)).toEqual({ ok: true, header: { alg: 'HS256', typ: 'JWT', kid: 'app' }, claims: { sub: 'u1', exp: 2_000_000_000 } });
    const ours = signHs256({ sub: 'u2', exp: 2_000_000_000 }, SECRET, { kid: 'app' });
    const { payload, protectedHeader } = await jwtVerify(ours, key, { algorithms: ['HS256'], currentDate: new Date(0) });
    expect(payload).toEqual({ sub: 'u2', exp: 2_000_000_000 });
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT', kid: 'app' });
  });

  it('tries each given key in turn: the current one, then the previous one', async () => {
    const old = signHs256({ sub: 'u1' }, 'previous-secret-0123456789');
    expect((await verifyHs256(old, [SECRET, 'previous-secret-0123456789'])).ok).toBe(true);
    expect(await verifyHs256(old, [SECRET, undefined])).toEqual({ ok: false, failure: 'signature' });
    expect(await verifyHs256(old, SECRET)).toEqual({ ok: false, failure: 'signature' });
  });

  it('refuses, as jose does, a signature made with another key or over another body', async () => {
    const otherKey = await new SignJWT({ sub: 'u1' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('another-secret-0123456789'));
    const [head, , signature] = signHs256({ sub: 'u1' }, SECRET).split('.');
    const otherBody = `${head}.${b64('{"sub":"admin"}')}.${signature}`;
    const truncated = signHs256({ sub: 'u1' }, SECRET).slice(0, -4);
    for (const token of [otherKey, otherBody, truncated]) {
      expect(await verifyHs256(token, SECRET)).toEqual({ ok: false, failure: 'signature' });
      await expect(jwtVerify(token, key, { algorithms: ['HS256'] })).rejects.toThrow();
    }
  });

  it.each([
    ['three segments only', 'a.b', 'malformed'],
    ['a header that is not JSON', `${b64('nope')}.${b64('{}')}.${b64('sig')}`, 'malformed'],
    ['a header that is an array', `${b64('[1]')}.${b64('{}')}.${b64('sig')}`, 'malformed'],
    ['claims that are an array', `${b64('{"alg":"HS256"}')}.${b64('[1]')}.${b64('sig')}`, 'malformed'],
    ['alg none', `${b64('{"alg":"none"}')}.${b64('{"sub":"u1"}')}.`, 'algorithm'],
    ['alg HS384', `${b64('{"alg":"HS384"}')}.${b64('{"sub":"u1"}')}.${b64('sig')}`, 'algorithm'],
    ['a critical header jose does not know', signHs256({ sub: 'u1' }, SECRET, { crit: 'x' } as Record<string, string>), 'malformed'],
  ])('refuses %s', async (_what, token, failure) => {
    expect(await verifyHs256(token, SECRET)).toEqual({ ok: false, failure });
  });
});

function b64(text: string): string {
  return Buffer.from(text).toString('base64url');
}
