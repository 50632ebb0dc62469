import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { withKitKeys } from '../helpers/permissions.js';
import { describeEachStore } from '../helpers/stores.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };
const anonymous = { 'x-platform-token': 'pseudonymoustoken' };
const NONE = { readable: false, commentable: false, editable: false, copyable: false, exportable: false, manageable: false };

describeEachStore('anonymous readers (the platform token pseudonymoustoken)', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  const unknownToken = { 'x-platform-token': 'not-a-token-anyone-issued' };
  const refusal = async (headers: Record<string, string>, url = '/users/current/info') => {
    const reply = await app.inject({ method: 'GET', url, headers });
    return [reply.statusCode, reply.json()];
  };

  it('reads nothing by default; a link with anonymous on opens that file only, read-only, until revoked', async () => {
    // While no file allows anonymous reading, the token is refused exactly as an unknown token is.
    expect(await refusal(anonymous)).toEqual(await refusal(unknownToken));
    expect((await refusal(anonymous))[0]).toBe(401);
    expect((await refusal(anonymous, '/files/plan'))[0]).toBe(401);
    // A link without anonymous, or a revoked anonymous link, lets nobody anonymous in.
    await app.inject({ method: 'POST', url: '/api/files/plan/share-links', headers: admin, payload: { role: 'view' } });
    expect((await refusal(anonymous))[0]).toBe(401);
    const gone = (await app.inject({ method: 'POST', url: '/api/files/plan/share-links', headers: admin, payload: { role: 'view', anonymous: true } })).json();
    expect((await refusal(anonymous))[0]).toBe(200);
    await app.inject({ method: 'DELETE', url: `/api/share-links/${gone.id}`, headers: admin });
    expect((await refusal(anonymous))[0]).toBe(401);

    const link = (await app.inject({ method: 'POST', url: '/api/files/plan/share-links', headers: admin, payload: { role: 'edit', anonymous: true } })).json();
    const opened = await app.inject({ method: 'GET', url: '/files/plan', headers: anonymous });
    expect(opened.statusCode).toBe(200);
    expect(opened.json().permissions).toEqual(withKitKeys({ ...NONE, readable: true }));
    const me = (await app.inject({ method: 'GET', url: '/users/current/info', headers: anonymous })).json();
    expect(me).toMatchObject({ id: 'anonymous', name: 'Anonymous', teamGuid: '' });
    expect((await app.inject({ method: 'GET', url: '/files/sheet', headers: anonymous })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/users/zhang', headers: anonymous })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/teams/acme/members', headers: anonymous })).statusCode).toBe(403);
    await app.inject({ method: 'DELETE', url: `/api/share-links/${link.id}`, headers: admin });
    expect((await app.inject({ method: 'GET', url: '/files/plan', headers: anonymous })).statusCode).toBe(401);
    expect(await refusal(anonymous)).toEqual(await refusal(unknownToken));
  });

  it('a file marked "anonymous": "view" on its record is readable anonymously, read-only, that file only; off by default', async () => {
    const record = (await app.inject({ method: 'GET', url: '/api/files/plan', headers: admin })).json();
    expect(record.anonymous).toBeUndefined();
    expect((await refusal(anonymous, '/files/plan'))[0]).toBe(401);
    // A value other than view is refused and changes nothing.
    const bad = await app.inject({ method: 'PUT', url: '/api/files/plan', headers: admin, payload: { ...record, anonymous: 'edit' } });
    expect(bad.statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/api/files/plan', headers: admin })).json()).toEqual(record);
    expect((await refusal(anonymous))[0]).toBe(401);

    const marked = await app.inject({ method: 'PUT', url: '/api/files/plan', headers: admin, payload: { ...record, anonymous: 'view' } });
    expect(marked.statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/files/plan', headers: admin })).json()).toEqual({ ...record, anonymous: 'view' });
    const opened = await app.inject({ method: 'GET', url: '/files/plan', headers: anonymous });
    expect(opened.statusCode).toBe(200);
    expect(opened.json().permissions).toEqual(withKitKeys({ ...NONE, readable: true }));
    expect((await refusal(anonymous))[0]).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/files/sheet', headers: anonymous })).statusCode).toBe(404);

    // Taking the mark off ends it at the next request.
    expect((await app.inject({ method: 'PUT', url: '/api/files/plan', headers: admin, payload: record })).statusCode).toBe(200);
    expect((await refusal(anonymous, '/files/plan'))[0]).toBe(401);
  });
});
