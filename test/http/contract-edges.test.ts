import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { epochSeconds, signHs256 } from '../../src/auth/jwt.js';
import { buildApp } from '../../src/composition/app.js';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { SCIM_TOKEN, scimConfig } from '../scim/scim-client.js';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

/** One raw request on a real socket: what Node refuses never reaches `inject`. */
function rawGet(app: FastifyInstance, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, headers, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

/** Issue 31 deliver 4 and issue 20 item 10: every error in the contract's shape, security headers, token and signature times. */
describeEachStore('the contract at its edges', (store) => {
  let app: FastifyInstance;
  const config = makeTestConfig();

  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  it('every answer carries nosniff and Referrer-Policy: JSON, errors, 404s, /docs; HSTS only when PUBLIC_URL is https', async () => {
    for (const options of [
      { method: 'GET' as const, url: '/users/zhang', headers: asUser('zhang') },
      { method: 'GET' as const, url: '/users/zhang' },
      { method: 'GET' as const, url: '/no/such/route' },
      { method: 'GET' as const, url: '/api/teams', headers: admin },
      { method: 'GET' as const, url: '/healthz' },
      { method: 'GET' as const, url: '/docs/json' },
      { method: 'GET' as const, url: '/files/%E0%A4%A', headers: asUser('zhang') },
    ]) {
      const response = await app.inject(options);
      expect(response.headers['x-content-type-options'], options.url).toBe('nosniff');
      expect(response.headers['referrer-policy'], options.url).toBe('no-referrer');
      expect(response.headers['strict-transport-security'], options.url).toBeUndefined();
    }
    const https = await buildTestApp(store(), { publicUrl: 'https://collab.example.com' });
    try {
      expect((await https.inject({ method: 'GET', url: '/healthz' })).headers['strict-transport-security']).toBe('max-age=31536000');
    } finally {
      await https.close();
    }
  });

  it('/docs has a CSP without inline script and cannot be framed', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs' });
    expect(response.statusCode).toBe(200);
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|upgrade-insecure-requests/);
    expect(response.headers['x-frame-options']).toBe('DENY');
  });

  it('431 (headers too large) and 414 come in the error shape, and in SCIM’s under /scim/v2', async () => {
    const scimApp = await buildApp({ config: scimConfig(), store: store(), logger: false });
    await scimApp.listen({ port: 0, host: '127.0.0.1' });
    try {
      const big = { 'x-filler': 'x'.repeat(20_000) };
      const plain = await rawGet(scimApp, '/users/zhang', big);
      expect(plain.status).toBe(431);
      expect(JSON.parse(plain.body)).toEqual({ error: { code: 'headers_too_large', message: expect.stringMatching(/headers are larger/) } });
      expect(plain.headers['x-content-type-options']).toBe('nosniff');
      const scim = await rawGet(scimApp, '/scim/v2/Users', big);
      expect(scim.status).toBe(431);
      expect(JSON.parse(scim.body)).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '431', error: { message: expect.any(String) } });

      const longId = 'a'.repeat(5000);
      const tooLong = await scimApp.inject({ method: 'GET', url: `/users/${longId}`, headers: asUser('zhang') });
      expect(tooLong.statusCode).toBe(414);
      expect(tooLong.json()).toEqual({ error: { code: 'uri_too_long', message: expect.any(String) } });
      const scimTooLong = await scimApp.inject({ method: 'GET', url: `/scim/v2/Users/${longId}`, headers: { authorization: `Bearer ${SCIM_TOKEN}` } });
      expect(scimTooLong.statusCode).toBe(414);
      expect(scimTooLong.json()).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '414' });
      const scimBadUrl = await scimApp.inject({ method: 'GET', url: '/scim/v2/Users/%E0%A4%A', headers: { authorization: `Bearer ${SCIM_TOKEN}` } });
      expect(scimBadUrl.statusCode).toBe(400);
      expect(scimBadUrl.json()).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '400', scimType: 'invalidSyntax' });
    } finally {
      await scimApp.close();
    }
  });

  it('a user token with a future nbf is refused on callbacks and on /events; within a minute of skew it is taken', async () => {
    const now = epochSeconds();
    const token = (nbf: number) => signHs256({ sub: 'zhang', iat: now, nbf, exp: now + 3600 }, config.tokenSecret);
    const early = await app.inject({ method: 'GET', url: '/users/zhang', headers: { 'x-platform-token': token(now + 3600) } });
    expect(early.statusCode).toBe(401);
    expect(early.json()).toEqual({ error: { code: 'token_not_yet_valid', message: 'the user token is not valid yet (its nbf is in the future)' } });
    const pushed = await app.inject({
      method: 'POST',
      url: '/events',
      headers: { 'content-type': 'application/json', 'x-platform-sdk-event': 'Comment', 'x-platform-token': token(now + 3600) },
      payload: { kind: 'comment', action: 'create', fileId: 'plan', userId: 'zhang', comment: { id: 'nbf-1', content: 'early' } },
    });
    expect(pushed.statusCode).toBe(401);
    expect(pushed.json()).toMatchObject({ error: { code: 'token_not_yet_valid' } });
    expect((await app.inject({ method: 'GET', url: '/users/zhang', headers: { 'x-platform-token': token(now + 30) } })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/users/zhang', headers: { 'x-platform-token': token(now - 30) } })).statusCode).toBe(200);
  });

  it("a platform signature's lifetime is bounded (SIGNATURE_MAX_LIFETIME, 24 h by default); the kit's signatures pass", async () => {
    const now = epochSeconds();
    const sign = (claims: Record<string, unknown>) => signHs256({ fileId: 'plan', ...claims }, config.appSecret, { kid: config.appId });
    const call = (signature: string, target = app) =>
      target.inject({ method: 'GET', url: '/admin/files/plan', headers: { 'x-platform-credential-type': '3', 'x-platform-signature': signature } });
    const tenYears = await call(sign({ exp: now + 10 * 365 * 86_400 }));
    expect(tenYears.statusCode).toBe(401);
    expect(tenYears.json()).toMatchObject({ error: { code: 'signature_lifetime' } });
    expect((await call(sign({ iat: now, exp: now + 25 * 3600 }))).json()).toMatchObject({ error: { code: 'signature_lifetime' } });
    // As the platform's kit signs (no iat, 24 h) and as the conformance kit signs (iat, 2 minutes).
    expect((await call(sign({ exp: now + 24 * 3600 }))).statusCode).toBe(200);
    expect((await call(mintSignature({ appId: config.appId, appSecret: config.appSecret }, { ttlSeconds: 120, fileId: 'plan' }))).statusCode).toBe(200);

    const strict = await buildTestApp(store(), { signatureMaxLifetimeSeconds: 600 });
    try {
      expect((await call(sign({ iat: now, exp: now + 3600 }), strict)).json()).toMatchObject({ error: { code: 'signature_lifetime' } });
      expect((await call(sign({ iat: now, exp: now + 300 }), strict)).statusCode).toBe(200);
    } finally {
      await strict.close();
    }
  });
});
