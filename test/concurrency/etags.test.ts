import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { patchOp, scimConfig, USER_SCHEMA } from '../scim/scim-client.js';
import { ADMIN_API_KEY, api, scimRequest, SCIM_TEAM } from './instances.js';

/** Clients that read, edit and write back send what they read (issue 29 item 2): a stale version is refused with 412. */
describeEachStore('ETags and If-Match', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { ...scimConfig(SCIM_TEAM), adminApiKey: ADMIN_API_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  it('the management API answers an ETag on GET and PUT and refuses a PUT or DELETE with a stale If-Match (412), changing nothing', async () => {
    const read = await api(app, { method: 'GET', url: '/api/users/carol' });
    const tag = read.headers.etag as string;
    expect(tag).toMatch(/^"[\w-]+"$/);
    const written = await api(app, { method: 'PUT', url: '/api/users/carol', headers: { 'if-match': tag }, payload: { ...(read.json() as object), name: 'Carol W.' } });
    expect(written.statusCode).toBe(200);
    expect(written.headers.etag).not.toBe(tag);
    expect((await api(app, { method: 'GET', url: '/api/users/carol' })).headers.etag).toBe(written.headers.etag);

    const stale = await api(app, { method: 'PUT', url: '/api/users/carol', headers: { 'if-match': tag }, payload: { ...(read.json() as object), name: 'Lost' } });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error).toMatchObject({ code: 'precondition_failed' });
    const staleDelete = await api(app, { method: 'DELETE', url: '/api/users/carol', headers: { 'if-match': tag } });
    expect(staleDelete.statusCode).toBe(412);
    expect((await api(app, { method: 'GET', url: '/api/users/carol' })).json()).toMatchObject({ name: 'Carol W.' });
    // `*` asks only that the record exists.
    expect((await api(app, { method: 'PUT', url: '/api/users/nobody', headers: { 'if-match': '*' }, payload: { name: 'Nobody', teamId: 'acme' } })).statusCode).toBe(412);
  });

  it('SCIM resources carry meta.version; a PATCH with a stale If-Match is refused with 412, a current one applies', async () => {
    const created = await scimRequest(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'etag.user', displayName: 'E Tag', active: true });
    expect(created.statusCode).toBe(201);
    const version = created.json().meta.version as string;
    const path = `/Users/${created.json().id as string}`;
    expect(version).toMatch(/^W\/"[\w-]+"$/);
    // A change by one client: the version moves, and a client still holding the old one is refused.
    const renamed = await scimRequest(app, 'PATCH', path, patchOp({ op: 'replace', path: 'displayName', value: 'E. Tag' }), { 'if-match': version });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().meta.version).not.toBe(version);
    const stale = await scimRequest(app, 'PATCH', path, patchOp({ op: 'replace', path: 'active', value: false }), { 'if-match': version });
    expect(stale.statusCode).toBe(412);
    expect(stale.json()).toMatchObject({ status: '412' });
    const user = await scimRequest(app, 'GET', path);
    expect(user.json()).toMatchObject({ displayName: 'E. Tag', active: true, meta: { version: renamed.json().meta.version } });
    expect((await scimRequest(app, 'DELETE', path, undefined, { 'if-match': version })).statusCode).toBe(412);
  });
});
