import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mintUserToken } from '../../src/auth/user-token.js';
import { buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

/** Every user-context route of interface 4.1-4.3, with a request that would otherwise succeed. */
const ROUTES: Array<{ method: 'GET' | 'POST'; url: string; payload?: unknown }> = [
  { method: 'GET', url: '/files' },
  { method: 'GET', url: '/files/plan' },
  { method: 'GET', url: '/files/plan/collaborators' },
  { method: 'GET', url: '/users/current/info' },
  { method: 'GET', url: '/users/current/team' },
  { method: 'GET', url: '/users/zhang' },
  { method: 'POST', url: '/users/batch/get', payload: { ids: ['zhang'] } },
  { method: 'GET', url: '/users/zhang/watermark' },
  { method: 'GET', url: '/users/zhang/department-paths' },
  { method: 'GET', url: '/teams/acme/members' },
  { method: 'GET', url: '/departments/rd' },
  { method: 'GET', url: '/departments/rd/children' },
  { method: 'GET', url: '/departments/rd/members' },
];

describeEachStore('user token on every user-context callback', (store) => {
  let app: FastifyInstance;
  const secret = makeTestConfig().tokenSecret;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
  });

  const call = (route: (typeof ROUTES)[number], headers: Record<string, string>) =>
    app.inject({ method: route.method, url: route.url, headers, ...(route.payload ? { payload: route.payload as object } : {}) });

  const refusals: Array<[string, Record<string, string>, string]> = [
    ['missing', {}, 'token_missing'],
    ['empty', { 'x-platform-token': '' }, 'token_missing'],
    ['malformed', { 'x-platform-token': 'not-a-token' }, 'token_malformed'],
    ['forged', { 'x-platform-token': mintUserToken('zhang', 'another-secret-0123456789', 3600) }, 'token_forged'],
    ['expired', { 'x-platform-token': mintUserToken('zhang', secret, 60, Date.now() - 3_600_000) }, 'token_expired'],
    ['deleted user', { 'x-platform-token': mintUserToken('ghost', secret, 3600) }, 'token_user_unknown'],
  ];

  for (const [what, headers, code] of refusals) {
    it(`a ${what} token is a 401 JSON error on every route`, async () => {
      for (const route of ROUTES) {
        const response = await call(route, headers);
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
        expect(response.json().error.code).toBe(code);
      }
    });
  }

  it('a valid token opens every route, and the header name is case-insensitive', async () => {
    for (const route of ROUTES) {
      const response = await call(route, { 'X-PLATFORM-TOKEN': mintUserToken('zhang', secret, 3600) });
      expect(response.statusCode, `${route.method} ${route.url}`).toBe(200);
    }
  });

  it("a deactivated user's token is refused at once (though the resolver remembers it), and works again after re-activation", async () => {
    const token = mintUserToken('zhang', secret, 3600);
    // Accepted first, so the resolver remembers the verified token: the user's state is still read every time.
    expect((await call(ROUTES[3]!, { 'x-platform-token': token })).statusCode).toBe(200);
    const setActive = (active: number) => store().db.updateTable('users').set({ active }).where('id', '=', 'zhang').execute();
    await setActive(0);
    try {
      for (const route of ROUTES) {
        const response = await call(route, { 'x-platform-token': token });
        expect(response.statusCode, `${route.method} ${route.url}`).toBe(401);
        expect(response.json().error).toEqual({ code: 'token_user_inactive', message: 'the user of this token is deactivated' });
      }
    } finally {
      await setActive(1);
    }
    expect((await call(ROUTES[3]!, { 'x-platform-token': token })).statusCode).toBe(200);
  });

  it('the token is checked before the request is validated', async () => {
    const response = await app.inject({ method: 'GET', url: '/files?limit=abc' });
    expect(response.statusCode).toBe(401);
  });

  it('HEADER_BRAND=Shimo reads X-Shimo-Token instead', async () => {
    const shimo = await buildTestApp(store(), { headerBrand: 'Shimo' });
    try {
      const token = mintUserToken('zhang', secret, 3600);
      expect((await shimo.inject({ method: 'GET', url: '/users/current/info', headers: { 'x-shimo-token': token } })).statusCode).toBe(200);
      expect((await shimo.inject({ method: 'GET', url: '/users/current/info', headers: { 'x-platform-token': token } })).statusCode).toBe(401);
    } finally {
      await shimo.close();
    }
  });
});
