import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

/** Issue 10, findings 4 and 5: edge input gets the same 4xx on both stores, in the one error shape. */
describeEachStore('input at the edges', (store) => {
  let app: FastifyInstance;
  const config = makeTestConfig();
  const user = asUser('zhang');
  const signedFor = (fileId: string) => ({
    'x-platform-credential-type': '3',
    'x-platform-signature': mintSignature({ appId: config.appId, appSecret: config.appSecret }, { ttlSeconds: 60, fileId }),
  });

  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  const expectError = (response: { statusCode: number; json(): unknown }, status: number, code: string, message?: RegExp) => {
    expect(response.statusCode).toBe(status);
    const body = response.json() as { error: { code: string; message: string } };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error.code).toBe(code);
    if (message) expect(body.error.message).toMatch(message);
  };

  it('a NUL in a path id is a 400 on every kind of route, before any lookup', async () => {
    const requests = [
      { method: 'GET' as const, url: '/files/a%00b', headers: user },
      { method: 'GET' as const, url: '/files/a%00b/collaborators', headers: user },
      { method: 'GET' as const, url: '/users/a%00b', headers: user },
      { method: 'GET' as const, url: '/users/a%00b/watermark', headers: user },
      { method: 'GET' as const, url: '/departments/a%00b', headers: user },
      { method: 'GET' as const, url: '/departments/a%00b/children', headers: user },
      { method: 'GET' as const, url: '/teams/a%00b/members', headers: user },
      { method: 'GET' as const, url: '/admin/files/a%00b', headers: signedFor('a\u0000b') },
      { method: 'GET' as const, url: '/api/files/a%00b/presence', headers: admin },
      { method: 'DELETE' as const, url: '/api/users/a%00b', headers: admin },
    ];
    for (const request of requests) expectError(await app.inject(request), 400, 'invalid_request', /path parameter "\w+" contains a NUL character/);
  });

  it('a NUL in a query value or anywhere in a JSON body is a 400, and nothing is written', async () => {
    expectError(await app.inject({ method: 'GET', url: '/search/users/recent?fileId=a%00b', headers: user }), 400, 'invalid_request', /query parameter "fileId"/);
    expectError(await app.inject({ method: 'POST', url: '/users/batch/get', headers: user, payload: { ids: ['zhang', 'a\u0000b'] } }), 400, 'invalid_json', /NUL/);
    expectError(await app.inject({ method: 'POST', url: '/search', headers: user, payload: { fileId: 'a\u0000b', keyword: 'x', type: 'file_name' } }), 400, 'invalid_json');
    expectError(await app.inject({ method: 'POST', url: '/search', headers: user, payload: { keyword: 'a\u0000b', type: 'team_member' } }), 400, 'invalid_json');
    expectError(await app.inject({ method: 'PUT', url: '/api/teams/a%00b', headers: admin, payload: { name: 'x' } }), 400, 'invalid_request');
    expectError(await app.inject({ method: 'PUT', url: '/api/teams/t-new', headers: admin, payload: { name: 'a\u0000b' } }), 400, 'invalid_json');
    const teams = await store().db.selectFrom('teams').select('id').execute();
    expect(teams.map((team) => team.id).sort()).toEqual(['acme', 'other']);
  });

  it('page numbers that are not plain numbers, or past the last page there can be, are a 400', async () => {
    for (const page of ['1e400', '1e20', '%20', '', '0x10', '2000000']) {
      expectError(await app.inject({ method: 'GET', url: `/departments/rd/members?page=${page}`, headers: user }), 400, 'invalid_request', /querystring.page must be/);
    }
    expect((await app.inject({ method: 'GET', url: '/departments/rd/members?page=2&pageSize=1', headers: user })).statusCode).toBe(200);
    expectError(await app.inject({ method: 'GET', url: '/files?limit=1e400', headers: user }), 400, 'invalid_request', /querystring.limit must be integer/);
    expect((await app.inject({ method: 'GET', url: '/files?limit=1000', headers: user })).statusCode).toBe(200);
  });

  it('a number JSON cannot represent (1e400) in a body is a 400', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/search',
      headers: { ...user, 'content-type': 'application/json' },
      payload: '{"keyword":"","type":"team_member","page":1e400}',
    });
    expectError(response, 400, 'invalid_json', /number too large/);
  });

  it("Fastify's own refusals come out in the error shape: bad percent-encoding, a path parameter too long", async () => {
    expectError(await app.inject({ method: 'GET', url: '/files/%E0%A4%A', headers: user }), 400, 'invalid_url', /^the URL has a malformed percent-encoding$/);
    expectError(await app.inject({ method: 'GET', url: '/users/%ZZ', headers: user }), 400, 'invalid_url');
    expectError(await app.inject({ method: 'GET', url: `/files/${'a'.repeat(5000)}`, headers: user }), 414, 'uri_too_long');
    // An id of a few hundred characters is an id like any other (the management API takes up to 255).
    expectError(await app.inject({ method: 'GET', url: `/files/${'a'.repeat(255)}`, headers: user }), 404, 'file_not_found');
  });

  it('malformed or empty JSON on management routes is a 400 in the error shape, not a serialisation failure', async () => {
    const json = { ...admin, 'content-type': 'application/json' };
    expectError(await app.inject({ method: 'PUT', url: '/api/teams/t9', headers: json, payload: '{"name":' }), 400, 'invalid_json', /^the body is not valid JSON/);
    expectError(await app.inject({ method: 'PUT', url: '/api/teams/t9', headers: json, payload: '' }), 400, 'invalid_json', /^the body is empty/);
    expectError(await app.inject({ method: 'POST', url: '/users/batch/get', headers: { ...user, 'content-type': 'application/json' }, payload: '{"ids":' }), 400, 'invalid_json');
  });

  it('validation messages say what is allowed, never raw validator text', async () => {
    const status = await app.inject({ method: 'GET', url: '/api/notifications?status=sent', headers: admin });
    expectError(status, 400, 'invalid_request', /^querystring.status must be one of pending, delivered, failed$/);
    const keyword = await app.inject({ method: 'POST', url: '/search', headers: user, payload: { keyword: 5, type: 'team_member' } });
    expectError(keyword, 400, 'invalid_request', /^body.keyword must be string$/);
    const missing = await app.inject({ method: 'POST', url: '/users/batch/get', headers: user, payload: {} });
    expectError(missing, 400, 'invalid_request', /^body.ids is required$/);
  });
});
