import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { ENTERPRISE_SCHEMA, filtered, GROUP_SCHEMA, patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

const MANAGER = `${ENTERPRISE_SCHEMA}:manager`;

describeEachStore('SCIM takes what Entra ID and Okta send, answers what is set, and describes itself truly', (store) => {
  let app: FastifyInstance;
  let id: string;
  let url: string;
  beforeAll(async () => {
    app = await buildTestApp(store(), scimConfig('quirkco'));
    // A second active user: deactivating the first must not leave the team without one (issue 23's rule).
    expect((await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'other@quirk.example' })).status).toBe(201);
    const created = await scim(app, 'POST', '/Users', {
      schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
      userName: 'quinn@quirk.example',
      title: 'Engineer',
      emails: [{ value: 'quinn@quirk.example', type: 'work', primary: 'True' }],
      [ENTERPRISE_SCHEMA]: { department: 'R&D', manager: 'boss-1' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    id = created.body.id;
    url = `/Users/${encodeURIComponent(id)}`;
    expect(created.body[ENTERPRISE_SCHEMA].manager).toEqual({ value: 'boss-1' });
    expect(created.body.emails[0].primary).toBe(true);
  });
  afterAll(async () => {
    await app.close();
  });

  const patch = async (...operations: object[]) => {
    const answer = await scim(app, 'PATCH', url, patchOp(...operations));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };

  it("takes Entra ID's manager as a plain id or as { value }, with and without a path, in PATCH and PUT", async () => {
    expect((await patch({ op: 'Add', path: MANAGER, value: 'boss-2' }))[ENTERPRISE_SCHEMA].manager).toEqual({ value: 'boss-2' });
    expect((await patch({ op: 'Replace', path: MANAGER, value: { value: 'boss-3' } }))[ENTERPRISE_SCHEMA].manager).toEqual({ value: 'boss-3' });
    expect((await patch({ op: 'Replace', value: { [MANAGER]: 'boss-4' } }))[ENTERPRISE_SCHEMA].manager).toEqual({ value: 'boss-4' });
    expect((await patch({ op: 'replace', value: { [ENTERPRISE_SCHEMA]: { manager: 'boss-5' } } }))[ENTERPRISE_SCHEMA].manager).toEqual({ value: 'boss-5' });
    const put = await scim(app, 'PUT', url, {
      schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
      userName: 'quinn@quirk.example',
      title: 'Engineer',
      emails: [{ value: 'quinn@quirk.example' }],
      [ENTERPRISE_SCHEMA]: { department: 'R&D', manager: 'boss-6' },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body[ENTERPRISE_SCHEMA]).toEqual({ department: 'R&D', manager: { value: 'boss-6' } });
  });

  it('unassigns with null and [], with and without a path; operation names in any case; "False" booleans', async () => {
    let user = await patch({ op: 'REPLACE', path: MANAGER, value: null });
    expect(user[ENTERPRISE_SCHEMA]).toEqual({ department: 'R&D' });
    user = await patch({ op: 'Replace', value: { title: null, [`${ENTERPRISE_SCHEMA}:department`]: null } });
    expect(user).not.toHaveProperty('title');
    expect(user).not.toHaveProperty([ENTERPRISE_SCHEMA]);
    expect(user.schemas).toEqual([USER_SCHEMA]);
    user = await patch({ op: 'add', path: 'phoneNumbers', value: [{ value: '+86 10 1234', type: 'work' }] }, { op: 'ADD', path: 'nickName', value: 'Q' });
    expect(user.phoneNumbers).toHaveLength(1);
    user = await patch({ op: 'replace', path: 'phoneNumbers', value: [] }, { op: 'Replace', value: { nickName: null } });
    expect(user).not.toHaveProperty('phoneNumbers');
    expect(user).not.toHaveProperty('nickName');
    user = await patch({ op: 'Replace', path: 'active', value: 'False' });
    expect(user.active).toBe(false);
    user = await patch({ op: 'replace', value: { active: 'True' } }, { op: 'add', path: 'emails', value: [{ value: 'q2@quirk.example', primary: 'False' }] });
    expect(user.active).toBe(true);
    expect(user.emails.map((email: { primary?: boolean }) => email.primary ?? false)).toEqual([false, false]);
    // Still refused in our words: a value that cannot be applied.
    const bad = await scim(app, 'PATCH', url, patchOp({ op: 'replace', path: 'active', value: 'maybe' }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ scimType: 'invalidValue' });
  });

  it('leaves out of answers what a client never set (no empty strings, lists or objects)', async () => {
    const created = await scim(app, 'POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: 'sparse@quirk.example',
      emails: [{ value: '' }],
      name: { familyName: '' },
      addresses: [],
      title: null,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const body of [created.body, (await scim(app, 'GET', `/Users/${encodeURIComponent(created.body.id)}`)).body]) {
      expect(Object.keys(body).sort()).toEqual(['active', 'id', 'meta', 'schemas', 'userName']);
    }
    const group = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Nobody here', members: [] });
    expect(group.status).toBe(201);
    expect(group.body).not.toHaveProperty('members');
  });

  it('describes itself truly: externalId in /Schemas, sort, filter, patch and the authentication scheme', async () => {
    const schemas = (await scim(app, 'GET', '/Schemas')).body.Resources as Array<{ id: string; attributes: Array<{ name: string; caseExact?: boolean; uniqueness?: string }> }>;
    for (const schemaId of [USER_SCHEMA, GROUP_SCHEMA]) {
      const externalId = schemas.find((schema) => schema.id === schemaId)!.attributes.find((attribute) => attribute.name === 'externalId');
      expect(externalId, schemaId).toMatchObject({ caseExact: true, uniqueness: 'server' });
    }
    expect((await scim(app, 'GET', `/Schemas/${USER_SCHEMA}`)).body.attributes.map((attribute: { name: string }) => attribute.name)).toContain('externalId');
    const config = (await scim(app, 'GET', '/ServiceProviderConfig')).body;
    expect(config).toMatchObject({
      patch: { supported: true },
      sort: { supported: true },
      filter: { supported: true, maxResults: 200 },
      bulk: { supported: false },
      etag: { supported: true },
    });
    expect(config.authenticationSchemes).toEqual([
      expect.objectContaining({ type: 'oauthbearertoken', name: 'OAuth Bearer Token', description: expect.stringMatching(/SCIM_TOKEN/) }),
    ]);
  });

  it('sorts with sortBy and sortOrder; resources without the value come last ascending, first descending', async () => {
    for (const [userName, displayName] of [
      ['b@sort.example', 'bravo'],
      ['a@sort.example', 'Alpha'],
      ['c@sort.example', undefined],
    ]) {
      expect((await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName, ...(displayName ? { displayName } : {}) })).status).toBe(201);
    }
    const names = async (query: string) => {
      const answer = await scim(app, 'GET', `${filtered('/Users', 'userName ew "@sort.example"')}&${query}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.Resources.map((user: { userName: string }) => user.userName);
    };
    expect(await names('sortBy=userName')).toEqual(['a@sort.example', 'b@sort.example', 'c@sort.example']);
    expect(await names('sortBy=userName&sortOrder=descending')).toEqual(['c@sort.example', 'b@sort.example', 'a@sort.example']);
    expect(await names('sortBy=displayName')).toEqual(['a@sort.example', 'b@sort.example', 'c@sort.example']);
    expect(await names('sortBy=displayName&sortOrder=descending')).toEqual(['c@sort.example', 'b@sort.example', 'a@sort.example']);
    expect(await names('sortBy=displayName&count=1&startIndex=2')).toEqual(['b@sort.example']);
    for (const query of ['sortBy=__proto__', 'sortBy=name.constructor', 'sortBy=a..b']) {
      const refused = await scim(app, 'GET', `/Users?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body).toMatchObject({ scimType: 'invalidPath' });
    }
    expect((await scim(app, 'GET', '/Users?sortBy=userName&sortOrder=sideways')).status).toBe(400);
  });
});
