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

  it('a notification channel answers an ETag on GET and PUT; a PUT or DELETE with a stale If-Match is refused (412) and changes nothing', async () => {
    const body = { kind: 'webhook', name: 'Ops hook', target: 'https://hooks.example.com/a?key=s3cret', secret: 'first-secret' };
    const created = await api(app, { method: 'PUT', url: '/api/notification-channels/ops', payload: body });
    expect(created.statusCode).toBe(201);
    const tag = created.headers.etag as string;
    expect(tag).toMatch(/^"[\w-]+"$/);
    expect((await api(app, { method: 'GET', url: '/api/notification-channels/ops' })).headers.etag).toBe(tag);
    // Only the secret changes (it is never shown): the tag still moves.
    const rekeyed = await api(app, { method: 'PUT', url: '/api/notification-channels/ops', headers: { 'if-match': tag }, payload: { ...body, secret: 'second-secret' } });
    expect(rekeyed.statusCode).toBe(200);
    expect(rekeyed.headers.etag).not.toBe(tag);
    expect(JSON.stringify(rekeyed.json())).not.toContain('second-secret');
    expect(rekeyed.headers.etag).not.toContain('second-secret');

    const stale = await api(app, { method: 'PUT', url: '/api/notification-channels/ops', headers: { 'if-match': tag }, payload: { ...body, name: 'Lost' } });
    expect(stale.statusCode).toBe(412);
    expect(stale.json().error).toMatchObject({ code: 'precondition_failed' });
    expect((await api(app, { method: 'DELETE', url: '/api/notification-channels/ops', headers: { 'if-match': tag } })).statusCode).toBe(412);
    const now = await api(app, { method: 'GET', url: '/api/notification-channels/ops' });
    expect(now.json()).toMatchObject({ name: 'Ops hook' });
    expect(now.headers.etag).toBe(rekeyed.headers.etag);
    // `*` asks only that the channel exists; the current tag deletes it.
    expect((await api(app, { method: 'PUT', url: '/api/notification-channels/none', headers: { 'if-match': '*' }, payload: body })).statusCode).toBe(412);
    expect((await api(app, { method: 'GET', url: '/api/notification-channels/none' })).statusCode).toBe(404);
    expect((await api(app, { method: 'DELETE', url: '/api/notification-channels/ops', headers: { 'if-match': rekeyed.headers.etag as string } })).statusCode).toBe(204);
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

  it("SCIM answers carry an ETag header, the resource's meta.version, on GET, POST, PUT and PATCH", async () => {
    const created = await scimRequest(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'etag.header', displayName: 'E Header', active: true });
    expect(created.statusCode).toBe(201);
    expect(created.headers.etag).toBe(created.json().meta.version);
    const path = `/Users/${created.json().id as string}`;
    const read = await scimRequest(app, 'GET', path);
    expect(read.headers.etag).toBe(created.json().meta.version);
    const patched = await scimRequest(app, 'PATCH', path, patchOp({ op: 'replace', path: 'displayName', value: 'E. Header' }), { 'if-match': read.headers.etag as string });
    expect(patched.statusCode).toBe(200);
    expect(patched.headers.etag).toBe(patched.json().meta.version);
    expect(patched.headers.etag).not.toBe(read.headers.etag);
    const replaced = await scimRequest(
      app,
      'PUT',
      path,
      { schemas: [USER_SCHEMA], userName: 'etag.header', displayName: 'E. H.', active: true },
      { 'if-match': patched.headers.etag as string },
    );
    expect(replaced.statusCode).toBe(200);
    expect(replaced.headers.etag).toBe(replaced.json().meta.version);
    expect((await scimRequest(app, 'GET', path)).headers.etag).toBe(replaced.headers.etag);

    const group = await scimRequest(app, 'POST', '/Groups', { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'ETag Group' });
    expect(group.statusCode).toBe(201);
    expect(group.headers.etag).toBe(group.json().meta.version);
    const groupPath = `/Groups/${group.json().id as string}`;
    const added = await scimRequest(app, 'PATCH', groupPath, patchOp({ op: 'add', path: 'members', value: [{ value: created.json().id as string }] }));
    expect(added.headers.etag).toBe(added.json().meta.version);
    expect((await scimRequest(app, 'GET', groupPath)).headers.etag).toBe(added.headers.etag);
    // An error answer has none.
    expect((await scimRequest(app, 'GET', '/Users/nobody-at-all')).headers.etag).toBeUndefined();
  });
});
