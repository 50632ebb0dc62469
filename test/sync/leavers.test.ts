/**
 * Leavers are always locked out (issue 23): the deactivation or deletion of a team's LAST active user is
 * never refused for leaving the team empty, on every path that can do it: SCIM (PATCH `active` "False",
 * PUT, DELETE), the management API (PUT `active: false`, DELETE) and a snapshot import. The token of the
 * leaver is refused at once. LDAP's path is tested against slapd in ldap-poison.test.ts ("the team's last
 * active user, disabled in LDAP …").
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { composeDirectoryChanges } from '../../src/composition/directory-writes.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { patchOp, scim, scimConfig, USER_SCHEMA } from '../scim/scim-client.js';
import { callAs } from './sync-helpers.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const config = { ...scimConfig('solo-scim'), adminApiKey: ADMIN_API_KEY };

const tokenRefusal = async (app: FastifyInstance, userId: string) => (await callAs(app, userId, '/users/current/info')).body.error?.code as string | undefined;

describeEachStore("leavers are always locked out: the team's last active user", (store) => {
  let app: FastifyInstance;
  const manage = async (method: 'PUT' | 'DELETE', url: string, payload?: object) => {
    const response = await app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_API_KEY}` }, ...(payload ? { payload } : {}) });
    return { status: response.statusCode, body: response.body === '' ? {} : response.json() };
  };

  beforeAll(async () => {
    app = await buildTestApp(store(), config);
  });
  afterAll(async () => {
    await app.close();
  });

  it('SCIM: PATCH active "False", PUT active false and DELETE of the only user are applied, and the token is refused', async () => {
    const only = { schemas: [USER_SCHEMA], userName: 'only@solo.example', displayName: 'Only One' };
    const created = await scim(app, 'POST', '/Users', only);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    expect((await callAs(app, id, '/users/current/info')).status).toBe(200);

    const patched = await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'Replace', path: 'active', value: 'False' }));
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.active).toBe(false);
    expect(await tokenRefusal(app, id)).toBe('token_user_inactive');

    expect((await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'replace', path: 'active', value: true }))).body.active).toBe(true);
    expect((await callAs(app, id, '/users/current/info')).status).toBe(200);
    const put = await scim(app, 'PUT', `/Users/${id}`, { ...only, active: false });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.active).toBe(false);
    expect(await tokenRefusal(app, id)).toBe('token_user_inactive');

    expect((await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'replace', path: 'active', value: true }))).body.active).toBe(true);
    expect((await scim(app, 'DELETE', `/Users/${id}`)).status).toBe(204);
    expect((await scim(app, 'GET', `/Users/${id}`)).status).toBe(404);
    expect(await tokenRefusal(app, id)).toBe('token_user_unknown');
  });

  it('management API: PUT active false and DELETE of the only user are applied, and the token is refused', async () => {
    expect((await manage('PUT', '/api/teams/solo-api', { name: 'Solo API' })).status).toBe(201);
    const sam = { name: 'Sam Solo', teamId: 'solo-api', departmentIds: [] };
    expect((await manage('PUT', '/api/users/sam', sam)).status).toBe(201);
    expect((await callAs(app, 'sam', '/users/current/info')).status).toBe(200);

    const off = await manage('PUT', '/api/users/sam', { ...sam, active: false });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(await tokenRefusal(app, 'sam')).toBe('token_user_inactive');

    expect((await manage('PUT', '/api/users/sam', { ...sam, active: true })).status).toBe(200);
    const removed = await manage('DELETE', '/api/users/sam');
    expect(removed.status, JSON.stringify(removed.body)).toBe(204);
    expect(await tokenRefusal(app, 'sam')).toBe('token_user_unknown');
  });

  it('import: a snapshot that deactivates the only user is applied without --allow-empty, and the token is refused', async () => {
    const changes = composeDirectoryChanges(config, store());
    const team = { id: 'solo-import', name: 'Solo Import' };
    const ivy = { id: 'ivy', name: 'Ivy Solo', teamId: 'solo-import', departmentIds: [] };
    expect((await importSnapshot(changes, { teams: [team], users: [ivy] })).ok).toBe(true);
    expect((await callAs(app, 'ivy', '/users/current/info')).status).toBe(200);

    const deactivated = await importSnapshot(changes, { teams: [team], users: [{ ...ivy, active: false }] });
    expect(deactivated).toMatchObject({ ok: true, diff: { deactivatedUsers: ['ivy'] } });
    expect(await tokenRefusal(app, 'ivy')).toBe('token_user_inactive');
  });
});
