/**
 * The request sequence Okta sends to a SCIM 2.0 app, as its documentation describes it:
 * "Okta and SCIM Version 2.0" (https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20):
 * - Create: `GET /Users?filter=userName eq "…"&startIndex=1&count=100`, then `POST /Users` with
 *   userName, name, emails (primary, type work), displayName, locale, externalId, groups [], password, active.
 * - Retrieve `GET /Users/{id}`; update the profile with `PUT /Users/{id}` (the whole user).
 * - Deactivate and reactivate: `PATCH /Users/{id}` with `{"op":"replace","value":{"active":false}}`.
 * - Group push: `GET /Groups?filter=displayName eq "…"&startIndex=1&count=100`, `POST /Groups`
 *   with members [], rename with `{"op":"replace","value":{"id":…,"displayName":…}}`, members added
 *   with `{"op":"add","path":"members","value":[{"value","display"}]}` and removed with
 *   `{"op":"remove","path":"members[value eq \"…\"]"}`, `DELETE /Groups/{id}`.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { ids, search } from '../search/search-http.js';
import { callAs, departmentPaths } from '../sync/sync-helpers.js';
import { filtered, GROUP_SCHEMA, patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

const oktaUser = (userName: string, givenName: string, familyName: string, externalId: string) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName, familyName },
  emails: [{ primary: true, value: userName, type: 'work' }],
  displayName: `${familyName}${givenName}`,
  locale: 'zh-CN',
  externalId,
  groups: [],
  password: '1mz050nq',
  active: true,
});

describeEachStore('SCIM: the Okta request sequence', (store) => {
  let app: FastifyInstance;
  let danId: string;
  let centerId: string;
  let platformId: string;

  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), scimConfig('acme'));
  });
  afterAll(async () => {
    await app.close();
  });

  it('creates a user after finding no match by userName', async () => {
    const lookup = await scim(app, 'GET', filtered('/Users', 'userName eq "dan.zhou@acme.example"', '&startIndex=1&count=100'));
    expect(lookup.status).toBe(200);
    expect(lookup.contentType).toMatch(/^application\/scim\+json/);
    expect(lookup.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 0, Resources: [] });

    const created = await scim(app, 'POST', '/Users', oktaUser('dan.zhou@acme.example', '丹', '周', '00u1okta'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    danId = created.body.id;
    // The id is issued by the server (RFC 7643 §3.1): opaque, not the userName.
    expect(danId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(created.body).toMatchObject({ userName: 'dan.zhou@acme.example', active: true, externalId: '00u1okta', displayName: '周丹', meta: { resourceType: 'User' } });
    expect(created.body.password).toBeUndefined();
    expect(created.body.meta.location).toBe(`http://collab.test/scim/v2/Users/${danId}`);

    const again = await scim(app, 'GET', filtered('/Users', 'userName eq "DAN.ZHOU@acme.example"', '&startIndex=1&count=100'));
    expect(again.body.totalResults).toBe(1);
    expect(again.body.Resources[0].id).toBe(danId);
    expect((await scim(app, 'GET', `/Users/${encodeURIComponent(danId)}`)).body.name).toEqual({ givenName: '丹', familyName: '周' });

    // What the editor sees: the new person, with the name and e-mail Okta sent.
    expect((await callAs(app, danId, '/users/current/info')).body).toMatchObject({ id: danId, name: '周丹', email: 'dan.zhou@acme.example' });
  });

  it('takes over a user who was already in the team with that e-mail (from a snapshot), keeping their id', async () => {
    const created = await scim(app, 'POST', '/Users', oktaUser('zhang@example.com', '三', '张', '00u2okta'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.id).toBe('zhang');
    expect(await departmentPaths(app, 'zhang', 'zhang')).toEqual([['研发部', '后端组']]);
    // Her own watermark and avatar stay: SCIM has no watermark, and Okta sent no photo.
    expect((await scim(app, 'POST', '/Users', oktaUser('hanmeimei@example.com', '梅梅', '韩', '00u3okta'))).body.id).toBe('hanmeimei');
    expect((await callAs(app, 'zhang', '/users/hanmeimei/watermark')).body).toEqual({ watermarks: ['韩梅梅', '机密'] });
    expect((await callAs(app, 'zhang', '/users/hanmeimei')).body.avatar).toBe('https://avatars.example.com/hanmeimei.png');
  });

  it('updates the profile with PUT', async () => {
    const updated = await scim(app, 'PUT', `/Users/${encodeURIComponent(danId)}`, {
      ...oktaUser('dan.zhou@acme.example', '丹丹', '周', '00u1okta'),
      id: danId,
      displayName: '周丹丹',
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.displayName).toBe('周丹丹');
    expect((await callAs(app, 'zhang', `/users/${encodeURIComponent(danId)}`)).body.name).toBe('周丹丹');
  });

  it('pushes groups as departments, nested by name, with members', async () => {
    const lookup = await scim(app, 'GET', filtered('/Groups', 'displayName eq "研发中心"', '&startIndex=1&count=100'));
    expect(lookup.body.totalResults).toBe(0);
    const center = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: '研发中心', members: [] });
    expect(center.status, JSON.stringify(center.body)).toBe(201);
    centerId = center.body.id;
    const platform = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: '研发中心/平台组', members: [{ value: danId, display: '周丹丹' }] });
    expect(platform.status, JSON.stringify(platform.body)).toBe(201);
    platformId = platform.body.id;
    expect(platform.body.members).toEqual([{ value: danId, display: '周丹丹', type: 'User', $ref: `http://collab.test/scim/v2/Users/${encodeURIComponent(danId)}` }]);
    expect(await departmentPaths(app, danId, danId)).toEqual([['研发中心', '平台组']]);

    const renamed = await scim(app, 'PATCH', `/Groups/${centerId}`, patchOp({ op: 'replace', value: { id: centerId, displayName: '研发与平台中心' } }));
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.displayName).toBe('研发与平台中心');
    expect(await departmentPaths(app, danId, danId)).toEqual([['研发与平台中心', '平台组']]);

    const added = await scim(app, 'PATCH', `/Groups/${platformId}`, patchOp({ op: 'add', path: 'members', value: [{ value: 'zhang', display: '张三' }] }));
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.members.map((member: { value: string }) => member.value).sort()).toEqual([danId, 'zhang'].sort());
    expect(await departmentPaths(app, 'zhang', 'zhang')).toEqual([
      ['研发与平台中心', '平台组'],
      ['研发部', '后端组'],
    ]);

    const removed = await scim(app, 'PATCH', `/Groups/${platformId}`, patchOp({ op: 'remove', path: 'members[value eq "zhang"]' }));
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.members.map((member: { value: string }) => member.value)).toEqual([danId]);
    expect(await departmentPaths(app, 'zhang', 'zhang')).toEqual([['研发部', '后端组']]);
  });

  it('pinyin search finds the new Chinese name', async () => {
    expect(ids((await search(app, 'zhang', { type: 'team_member', keyword: 'zhoudan' })).teamMembers)).toContain(danId);
    expect(ids((await search(app, 'zhang', { type: 'department', keyword: 'pingtaizu' })).department)).toEqual([platformId]);
  });

  it('deactivates and reactivates a user with PATCH active', async () => {
    const off = await scim(app, 'PATCH', `/Users/${encodeURIComponent(danId)}`, patchOp({ op: 'replace', value: { active: false } }));
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await callAs(app, danId, '/users/current/info')).body.error.code).toBe('token_user_inactive');
    expect((await scim(app, 'GET', `/Users/${encodeURIComponent(danId)}`)).body.active).toBe(false);

    const on = await scim(app, 'PATCH', `/Users/${encodeURIComponent(danId)}`, patchOp({ op: 'replace', value: { active: true } }));
    expect(on.body.active).toBe(true);
    expect((await callAs(app, danId, '/users/current/info')).status).toBe(200);
  });

  it('deletes a group; it is gone from SCIM and from the directory', async () => {
    expect((await scim(app, 'DELETE', `/Groups/${platformId}`)).status).toBe(204);
    expect((await scim(app, 'GET', `/Groups/${platformId}`)).status).toBe(404);
    expect(await departmentPaths(app, danId, danId)).toEqual([]);
    expect((await callAs(app, danId, `/departments/${platformId}`)).status).toBe(404);
  });
});
