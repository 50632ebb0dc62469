import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditTrail } from '../../src/audit/audit-trail.js';
import { FailedAuthLimiter } from '../../src/auth/failed-auth-limit.js';
import type { Config } from '../../src/config/config.js';
import { buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const ADMIN_API_KEY = 'failed-auth-admin-key-0123456789';
const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };
const withAuthLimit = (max: number): Partial<Config> => ({ adminApiKey: ADMIN_API_KEY, limits: { ...makeTestConfig().limits, authFailureLimit: { max, windowMs: 60_000 } } });

/**
 * Issue 20, findings 6 and 7: failed authentications are limited per client before the key is compared,
 * one counter across /api and the console's sign-in; refused credentials, console sign-ins and sign-outs
 * and the user a token was minted for are in the audit log.
 */
describeEachStore('failed authentications', (store) => {
  let app: FastifyInstance;
  let audit: AuditTrail;
  beforeAll(async () => {
    await seedDirectory(store().db);
    audit = new AuditTrail(store().db);
    app = await buildTestApp(store(), withAuthLimit(3), { audit });
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    await audit.flush();
    await store().db.deleteFrom('audit_log').execute();
  });

  const auditOf = async (kind: string) => {
    await audit.flush();
    const response = await app.inject({ method: 'GET', url: `/api/audit?kind=${kind}&limit=100`, headers: admin, remoteAddress: '10.9.9.9' });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { items: Array<Record<string, unknown>> }).items;
  };

  it('refuses a client past its failed attempts before comparing its key, on /api and the console alike; other clients go on', async () => {
    const client = { remoteAddress: '10.1.1.1' };
    const wrong = (i: number) => app.inject({ method: 'GET', url: '/api/events', headers: { authorization: `Bearer wrong-key-${i}-0123456789` }, ...client });
    expect((await wrong(1)).statusCode).toBe(401);
    expect((await app.inject({ method: 'POST', url: '/console/session', payload: { key: 'wrong-console-key' }, ...client })).statusCode).toBe(401);
    expect((await wrong(2)).statusCode).toBe(401);
    // The fourth try is refused unchecked, even with the right key, on /api and on the console's sign-in.
    const blocked = await app.inject({ method: 'GET', url: '/api/events', headers: admin, ...client });
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({ error: { code: 'auth_rate_limited', message: expect.stringMatching(/^too many failed authentications from this address: retry in \d+ s$/) } });
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const console = await app.inject({ method: 'POST', url: '/console/session', payload: { key: ADMIN_API_KEY }, ...client });
    expect(console.statusCode).toBe(429);
    expect(console.headers['set-cookie']).toBeUndefined();
    expect((await app.inject({ method: 'GET', url: '/api/events', headers: admin, remoteAddress: '10.2.2.2' })).statusCode).toBe(200);

    const refused = await auditOf('sign_in');
    expect(refused.map((entry) => [entry.credential, entry.action, (entry.details as Record<string, unknown>).code, (entry.details as Record<string, unknown>).client])).toEqual([
      ['admin_key', 'refused GET /api/events', 'admin_key_invalid', '10.1.1.1'],
      ['admin_key', 'refused POST /console/session', 'admin_key_invalid', '10.1.1.1'],
      ['admin_key', 'refused GET /api/events', 'admin_key_invalid', '10.1.1.1'],
    ]);
    expect(JSON.stringify(refused)).not.toContain('wrong-key');
  });

  it('records console sign-ins and sign-outs, and the user a token was minted for', async () => {
    const client = { remoteAddress: '10.3.3.3' };
    const signIn = await app.inject({ method: 'POST', url: '/console/session', payload: { key: ADMIN_API_KEY }, ...client });
    expect(signIn.statusCode).toBe(201);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const { csrfToken } = signIn.json() as { csrfToken: string };
    const minted = await app.inject({ method: 'POST', url: '/api/tokens', headers: { cookie, 'x-csrf-token': csrfToken }, payload: { userId: 'lilei' }, ...client });
    expect(minted.statusCode).toBe(201);
    expect((await app.inject({ method: 'DELETE', url: '/console/session', headers: { cookie, 'x-csrf-token': csrfToken }, ...client })).statusCode).toBe(204);

    expect((await auditOf('sign_in')).map((entry) => [entry.credential, entry.action, (entry.details as Record<string, unknown>).client])).toEqual([
      ['admin_key', 'console sign-in', '10.3.3.3'],
      ['console_session', 'console sign-out', '10.3.3.3'],
    ]);
    const [token] = (await auditOf('management')).filter((entry) => entry.action === 'POST /api/tokens');
    expect(token).toMatchObject({ credential: 'console_session', details: { status: 201, tokenUserId: 'lilei' } });
  });
});

describe('the failed-authentication window', () => {
  it('lets a client try again once its window has passed', () => {
    let now = 0;
    const limiter = new FailedAuthLimiter({ max: 2, windowMs: 1000 }, () => now);
    limiter.recordFailure('a');
    expect(limiter.blockedForMs('a')).toBe(0);
    limiter.recordFailure('a');
    now = 400;
    expect(limiter.blockedForMs('a')).toBe(600);
    expect(limiter.blockedForMs('b')).toBe(0);
    now = 1000;
    expect(limiter.blockedForMs('a')).toBe(0);
    expect(new FailedAuthLimiter(undefined).blockedForMs('a')).toBe(0);
  });
});
