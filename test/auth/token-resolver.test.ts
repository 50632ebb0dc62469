import { describe, expect, it } from 'vitest';
import { defaultTokenResolver } from '../../src/auth/token-resolver.js';
import { mintUserToken } from '../../src/auth/user-token.js';

const SECRET = 'resolver-test-secret-0123456789';

describe('default token resolver', () => {
  it('accepts a valid token, and again from its cache', async () => {
    const resolve = defaultTokenResolver(SECRET);
    const token = mintUserToken('u1', SECRET, 60);
    expect(await resolve(token)).toMatchObject({ ok: true, userId: 'u1' });
    expect(await resolve(token)).toMatchObject({ ok: true, userId: 'u1' });
  });

  it('refuses a remembered token once it has expired', async () => {
    let clock = Date.now();
    const resolve = defaultTokenResolver(SECRET, () => clock);
    const token = mintUserToken('u1', SECRET, 60, clock);
    expect(await resolve(token)).toMatchObject({ ok: true });
    clock += 61_000;
    expect(await resolve(token)).toMatchObject({ ok: false, reason: 'expired', userId: 'u1' });
  });

  it('refuses forged and malformed tokens every time', async () => {
    const resolve = defaultTokenResolver(SECRET);
    const forged = mintUserToken('u1', 'another-secret-0123456789', 60);
    expect(await resolve(forged)).toEqual({ ok: false, reason: 'forged' });
    expect(await resolve(forged)).toEqual({ ok: false, reason: 'forged' });
    expect(await resolve('not-a-token')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('during a key rotation accepts tokens of the previous secret too, and only while it is configured', async () => {
    const previous = 'resolver-previous-secret-0123';
    const old = mintUserToken('u1', previous, 60);
    expect(await defaultTokenResolver([SECRET, previous])(old)).toMatchObject({ ok: true, userId: 'u1' });
    expect(await defaultTokenResolver([SECRET, undefined])(old)).toEqual({ ok: false, reason: 'forged' });
    expect(await defaultTokenResolver(SECRET)(old)).toEqual({ ok: false, reason: 'forged' });
  });

  it('does not verify a remembered token again until it expires, and remembers at most maxEntries (least recently used go first)', async () => {
    // Tokens of a previous key, then that key withdrawn from the list the resolver verifies with: a token
    // still remembered is not verified again (accepted), one that was let go is verified again (refused).
    const previous = 'resolver-previous-secret-0123';
    const secrets: Array<string | undefined> = [SECRET, previous];
    let clock = Date.parse('2026-03-01T09:00:00Z');
    const resolve = defaultTokenResolver(secrets, () => clock, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((user) => mintUserToken(user, previous, 60, clock)) as [string, string, string];
    for (const token of [a, b, a, c]) expect(await resolve(token)).toMatchObject({ ok: true });
    secrets.pop();
    // c and a are remembered (a was used after b); b was let go when c came.
    expect(await resolve(c)).toMatchObject({ ok: true, userId: 'c' });
    expect(await resolve(a)).toMatchObject({ ok: true, userId: 'a' });
    expect(await resolve(b)).toEqual({ ok: false, reason: 'forged' });
    // Expiry is still checked on a remembered token (the key back, so the refusal is the expiry's).
    secrets.push(previous);
    clock += 61_000;
    expect(await resolve(a)).toMatchObject({ ok: false, reason: 'expired', userId: 'a' });
  });
});
