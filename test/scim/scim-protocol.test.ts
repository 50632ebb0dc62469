import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { ENTERPRISE_SCHEMA, filtered, GROUP_SCHEMA, patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('SCIM switched off and guarded', () => {
  let store: OpenDatabase;
  let off: FastifyInstance;
  let on: FastifyInstance;
  beforeAll(async () => {
    store = await openDatabase('sqlite::memory:');
    off = await buildTestApp(store);
    on = await buildTestApp(store, scimConfig('acme'));
  });
  afterAll(async () => {
    await off.close();
    await on.close();
    await store.close();
  });

  it('without SCIM_TOKEN every SCIM address is a 404 in the SCIM error shape', async () => {
    for (const url of ['/Users', '/Groups/x', '/ServiceProviderConfig', '/Nope']) {
      const answer = await scim(off, 'GET', url);
      expect(answer.status, url).toBe(404);
      expect(answer.contentType).toMatch(/^application\/scim\+json/);
      expect(answer.body).toMatchObject({ schemas: [ERROR], status: '404', error: { code: 'not_found' } });
      expect(answer.body.detail).toMatch(/SCIM provisioning is off/);
    }
  });

  it('a missing or wrong Bearer token is a 401, before the body is read', async () => {
    const missing = await on.inject({ method: 'GET', url: '/scim/v2/Users' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toMatchObject({ schemas: [ERROR], status: '401', detail: 'SCIM needs Authorization: Bearer <SCIM_TOKEN>' });
    const wrong = await scim(on, 'POST', '/Users', '{not json', 'scim-test-token-012345678X');
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).toBe('the SCIM token is not valid');
  });
});

describeEachStore('SCIM protocol: discovery, filters, paging, errors', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), scimConfig('scimco', { SCIM_TEAM_NAME: 'SCIM Co' }));
    const people: Array<[string, string, string]> = [
      ['alice.wang@scim.example', 'Alice Wang', 'ext-1'],
      ['bob.li@scim.example', '李波', 'ext-2'],
      ['carol.zhao@other.example', '赵卡罗', 'ext-3'],
      ['dave@scim.example', 'Dave Zhou', 'ext-4'],
    ];
    for (const [userName, displayName, externalId] of people) {
      const created = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName, displayName, externalId, emails: [{ value: userName, primary: true }] });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
  });
  afterAll(async () => {
    await app.close();
  });

  const userNames = (body: Record<string, unknown>) => (body.Resources as Array<{ userName: string }>).map((user) => user.userName);

  it('describes itself: ServiceProviderConfig, ResourceTypes and Schemas', async () => {
    const config = await scim(app, 'GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true, maxResults: 200 }, bulk: { supported: false }, etag: { supported: true } });
    expect(config.body.authenticationSchemes[0].type).toBe('oauthbearertoken');

    const types = await scim(app, 'GET', '/ResourceTypes');
    expect(types.body.Resources.map((type: { id: string }) => type.id)).toEqual(['User', 'Group']);
    expect((await scim(app, 'GET', '/ResourceTypes/User')).body).toMatchObject({ endpoint: '/Users', schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }] });
    expect((await scim(app, 'GET', '/ResourceTypes/Printer')).status).toBe(404);

    const schemas = await scim(app, 'GET', '/Schemas');
    expect(schemas.body.Resources.map((schema: { id: string }) => schema.id)).toEqual([USER_SCHEMA, ENTERPRISE_SCHEMA, GROUP_SCHEMA]);
    expect((await scim(app, 'GET', `/Schemas/${GROUP_SCHEMA}`)).body.attributes.map((attribute: { name: string }) => attribute.name)).toContain('members');
  });

  it('filters with eq, co, sw, and, or on userName, externalId, emails.value and displayName (case-insensitive where the schema says)', async () => {
    const cases: Array<[string, string[]]> = [
      ['userName eq "ALICE.WANG@scim.example"', ['alice.wang@scim.example']],
      ['userName co "zhao"', ['carol.zhao@other.example']],
      ['userName sw "b"', ['bob.li@scim.example']],
      ['externalId eq "ext-4"', ['dave@scim.example']],
      ['externalId eq "EXT-4"', []],
      ['emails.value co "@scim.example" and displayName sw "Dave"', ['dave@scim.example']],
      ['emails.value ew "other.example" or displayName eq "李波"', ['bob.li@scim.example', 'carol.zhao@other.example']],
      ['displayName co "zhou" or userName sw "alice"', ['alice.wang@scim.example', 'dave@scim.example']],
      ['emails[value sw "bob"]', ['bob.li@scim.example']],
    ];
    for (const [filter, expected] of cases) {
      const answer = await scim(app, 'GET', filtered('/Users', filter));
      expect(answer.status, filter).toBe(200);
      expect(userNames(answer.body).sort(), filter).toEqual(expected);
      expect(answer.body.totalResults, filter).toBe(expected.length);
    }
  });

  it('pages with startIndex and count; count=0 gives the total only; attributes narrows the answer', async () => {
    const all = userNames((await scim(app, 'GET', '/Users')).body);
    expect(all).toHaveLength(4);
    const page = await scim(app, 'GET', '/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(userNames(page.body)).toEqual(all.slice(1, 3));
    expect((await scim(app, 'GET', '/Users?startIndex=0&count=1')).body).toMatchObject({ startIndex: 1, itemsPerPage: 1 });
    expect((await scim(app, 'GET', '/Users?count=0')).body).toMatchObject({ totalResults: 4, itemsPerPage: 0, Resources: [] });
    expect((await scim(app, 'GET', '/Users?startIndex=9')).body).toMatchObject({ totalResults: 4, itemsPerPage: 0 });
    const narrow = await scim(app, 'GET', '/Users?attributes=userName&count=1');
    expect(Object.keys(narrow.body.Resources[0]).sort()).toEqual(['id', 'schemas', 'userName']);
  });

  it('answers bad requests with SCIM errors and changes nothing', async () => {
    const before = (await scim(app, 'GET', '/Users?count=0')).body.totalResults;
    const expectError = async (answer: Awaited<ReturnType<typeof scim>>, status: number, scimType?: string) => {
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect(answer.contentType).toMatch(/^application\/scim\+json/);
      expect(answer.body).toMatchObject({ schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}) });
      expect(answer.body.error.message).toBe(answer.body.detail);
    };
    await expectError(await scim(app, 'GET', filtered('/Users', 'userName xx "a"')), 400, 'invalidFilter');
    await expectError(await scim(app, 'GET', '/Users?count=abc'), 400, 'invalidValue');
    await expectError(await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], displayName: 'No userName' }), 400, 'invalidValue');
    await expectError(await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'x', active: 'maybe' }), 400, 'invalidValue');
    await expectError(await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'Alice.Wang@scim.example' }), 409, 'uniqueness');
    const raw = await app.inject({
      method: 'POST',
      url: '/scim/v2/Users',
      headers: { authorization: 'Bearer scim-test-token-0123456789', 'content-type': 'application/scim+json' },
      payload: '{"userName": ',
    });
    expect(raw.statusCode).toBe(400);
    expect(raw.json()).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidSyntax' });
    await expectError(await scim(app, 'GET', '/Users/nobody'), 404);
    const dave = (await scim(app, 'GET', filtered('/Users', 'userName eq "dave@scim.example"'))).body.Resources[0].id as string;
    await expectError(await scim(app, 'GET', '/Users/zhang'), 404); // not provisioned by SCIM
    await expectError(await scim(app, 'PATCH', `/Users/${dave}`, patchOp({ op: 'replace', path: 'shoeSize', value: 44 })), 400, 'invalidPath');
    await expectError(await scim(app, 'PATCH', `/Users/${dave}`, patchOp({ op: 'move', path: 'userName', value: 'x' })), 400, 'invalidSyntax');
    await expectError(await scim(app, 'PATCH', `/Users/${dave}`, { Operations: [] }), 400, 'invalidSyntax');
    await expectError(await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Nowhere/Team' }), 400, 'invalidValue');
    await expectError(await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Team', members: [{ value: 'zhang' }] }), 400, 'invalidValue');
    await expectError(await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'A//B' }), 400, 'invalidValue');
    expect((await scim(app, 'GET', '/Users?count=0')).body.totalResults).toBe(before);
    expect((await scim(app, 'GET', '/Groups?count=0')).body.totalResults).toBe(0);
  });

  it('refuses to delete a group that still has sub-groups, and a group as a member', async () => {
    const parent = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Engineering' });
    const child = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'engineering / Web' });
    expect(child.status, JSON.stringify(child.body)).toBe(201);
    expect(child.body.displayName).toBe('engineering / Web');
    const blocked = await scim(app, 'DELETE', `/Groups/${parent.body.id}`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.detail).toMatch(/sub-departments/);
    const nested = await scim(app, 'PATCH', `/Groups/${parent.body.id}`, patchOp({ op: 'add', path: 'members', value: [{ value: child.body.id, type: 'Group' }] }));
    expect(nested.status).toBe(400);
    expect(nested.body.detail).toMatch(/nest groups by displayName/);
    expect((await scim(app, 'DELETE', `/Groups/${child.body.id}`)).status).toBe(204);
    expect((await scim(app, 'DELETE', `/Groups/${parent.body.id}`)).status).toBe(204);
  });
});
