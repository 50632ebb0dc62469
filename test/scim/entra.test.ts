/**
 * The request sequence Microsoft Entra ID's provisioning service sends, as documented in
 * "Tutorial: Develop and plan provisioning for a SCIM endpoint in Microsoft Entra ID"
 * (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups,
 * section "User operations" and "Group operations" request examples) and, for its quirks,
 * "Known issues and resolutions with SCIM 2.0 protocol compliance of the Microsoft Entra user
 * provisioning service" (https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility):
 * - `GET /Users?filter=userName eq "…"` before `POST /Users` (enterprise extension, externalId,
 *   `meta.resourceType`, `roles: []`);
 * - PATCH with capitalised ops (`"Replace"`, `"Add"`, `"Remove"`), paths such as
 *   `emails[type eq "work"].value` and `name.familyName`, and `active` sent as the string `"False"`;
 * - groups created with Microsoft's extra schema URN and looked up with `excludedAttributes=members`;
 *   members added and removed with `{"op":"Add"|"Remove","path":"members","value":[{"$ref":null,"value":…}]}`;
 * - `DELETE /Users/{id}` after the user is unassigned.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { upsertFiles } from '../../src/store/directory-writes/directory-writer.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { ids, search } from '../search/search-http.js';
import { callAs, departmentPaths, documentBy } from '../sync/sync-helpers.js';
import { ENTERPRISE_SCHEMA, filtered, GROUP_SCHEMA, patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

const MS_GROUP_SCHEMA = 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group';

const entraUser = (userName: string, externalId: string, familyName: string, givenName: string, department: string, formatted = `${familyName}${givenName}`) => ({
  schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
  externalId,
  userName,
  active: true,
  emails: [{ primary: true, type: 'work', value: userName }],
  meta: { resourceType: 'User' },
  name: { formatted, familyName, givenName },
  roles: [],
  [ENTERPRISE_SCHEMA]: { department },
});

describeEachStore('SCIM: the Microsoft Entra ID request sequence', (store) => {
  let app: FastifyInstance;
  const people = {
    wu: { userName: 'wu.lingling@contoso.example', externalId: 'lingling', family: '吴', given: '玲玲' },
    qian: { userName: 'qian.duoduo@contoso.example', externalId: 'duoduo', family: '钱', given: '多多' },
    adele: { userName: 'adele.vance@contoso.example', externalId: 'adelev', family: 'Vance', given: 'Adele' },
  };
  const id: Record<string, string> = {};
  let groupId: string;
  let subGroupId: string;

  beforeAll(async () => {
    // Team "contoso" does not exist yet: SCIM creates it with SCIM_TEAM_NAME.
    app = await buildTestApp(store(), scimConfig('contoso', { SCIM_TEAM_NAME: 'Contoso 中国' }));
  });
  afterAll(async () => {
    await app.close();
  });

  it('creates users after an empty lookup by userName', async () => {
    for (const [key, person] of Object.entries(people)) {
      const lookup = await scim(app, 'GET', filtered('/Users', `userName eq "${person.userName}"`));
      expect(lookup.body.totalResults).toBe(0);
      const formatted = /[a-z]/i.test(person.given) ? `${person.given} ${person.family}` : `${person.family}${person.given}`;
      const created = await scim(app, 'POST', '/Users', entraUser(person.userName, person.externalId, person.family, person.given, '研发部', formatted));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      expect(created.body.schemas).toEqual([USER_SCHEMA, ENTERPRISE_SCHEMA]);
      expect(created.body[ENTERPRISE_SCHEMA]).toEqual({ department: '研发部' });
      id[key] = created.body.id;
    }
    expect((await callAs(app, id.wu!, '/users/current/info')).body).toMatchObject({ name: '吴玲玲', email: people.wu.userName });
    expect((await callAs(app, id.adele!, '/users/current/info')).body.name).toBe('Adele Vance');
    expect((await callAs(app, id.wu!, '/users/current/team')).body).toMatchObject({ id: 'contoso', name: 'Contoso 中国' });
    const byExternalId = await scim(app, 'GET', filtered('/Users', 'externalId eq "duoduo"'));
    expect(byExternalId.body.Resources.map((user: { id: string }) => user.id)).toEqual([id.qian]);
  });

  it('updates multi-valued and single-valued attributes with capitalised "Replace" operations', async () => {
    const multi = await scim(
      app,
      'PATCH',
      `/Users/${id.wu}`,
      patchOp(
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'lingling.wu@contoso.example' },
        { op: 'Replace', path: 'name.familyName', value: '武' },
        { op: 'Replace', path: 'name.formatted', value: '武玲玲' },
      ),
    );
    expect(multi.status, JSON.stringify(multi.body)).toBe(200);
    expect(multi.body.emails).toEqual([{ primary: true, type: 'work', value: 'lingling.wu@contoso.example' }]);
    const single = await scim(app, 'PATCH', `/Users/${id.wu}`, patchOp({ op: 'Replace', path: 'userName', value: 'lingling.wu@contoso.example' }));
    expect(single.status, JSON.stringify(single.body)).toBe(200);
    expect(single.body.userName).toBe('lingling.wu@contoso.example');
    // The id stays what it was at creation; the directory follows the new name and e-mail.
    expect(single.body.id).toBe(id.wu);
    expect((await callAs(app, id.wu!, '/users/current/info')).body).toMatchObject({ name: '武玲玲', email: 'lingling.wu@contoso.example' });
    expect(ids((await search(app, id.qian!, { type: 'team_member', keyword: 'wulingling' })).teamMembers)).toEqual([id.wu]);
  });

  it("creates groups with Microsoft's schema URN, finds them with excludedAttributes=members, and changes members by value lists", async () => {
    const lookup = await scim(app, 'GET', filtered('/Groups', 'displayName eq "研发部"', '&excludedAttributes=members'));
    expect(lookup.body.totalResults).toBe(0);
    const created = await scim(app, 'POST', '/Groups', {
      schemas: [GROUP_SCHEMA, MS_GROUP_SCHEMA],
      externalId: '8aa1a0c0',
      displayName: '研发部',
      meta: { resourceType: 'Group' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    groupId = created.body.id;
    const sub = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA, MS_GROUP_SCHEMA], externalId: '9bb2', displayName: '研发部/测试组', meta: { resourceType: 'Group' } });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    subGroupId = sub.body.id;

    const found = await scim(app, 'GET', filtered('/Groups', 'displayName eq "研发部"', '&excludedAttributes=members'));
    expect(found.body.Resources.map((group: { id: string }) => group.id)).toEqual([groupId]);
    expect((await scim(app, 'GET', `/Groups/${groupId}?excludedAttributes=members`)).body).toMatchObject({ id: groupId, displayName: '研发部', externalId: '8aa1a0c0' });

    const add = await scim(
      app,
      'PATCH',
      `/Groups/${groupId}`,
      patchOp({
        op: 'Add',
        path: 'members',
        value: [
          { $ref: null, value: id.wu },
          { $ref: null, value: id.qian },
        ],
      }),
    );
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    const addSub = await scim(app, 'PATCH', `/Groups/${subGroupId}`, patchOp({ op: 'Add', path: 'members', value: [{ $ref: null, value: id.adele }] }));
    expect(addSub.status, JSON.stringify(addSub.body)).toBe(200);
    expect(await departmentPaths(app, id.wu!, id.adele!)).toEqual([['研发部', '测试组']]);
    expect((await callAs(app, id.wu!, `/departments/${groupId}`)).body).toMatchObject({ name: '研发部', allMemberCount: 3 });

    const remove = await scim(app, 'PATCH', `/Groups/${groupId}`, patchOp({ op: 'Remove', path: 'members', value: [{ $ref: null, value: id.qian }] }));
    expect(remove.status, JSON.stringify(remove.body)).toBe(200);
    expect((await scim(app, 'GET', `/Groups/${groupId}`)).body.members.map((member: { value: string }) => member.value)).toEqual([id.wu]);
    expect(await departmentPaths(app, id.wu!, id.qian!)).toEqual([]);

    const rename = await scim(app, 'PATCH', `/Groups/${groupId}`, patchOp({ op: 'Replace', path: 'displayName', value: '研发中心' }));
    expect(rename.body.displayName).toBe('研发中心');
    expect(await departmentPaths(app, id.wu!, id.adele!)).toEqual([['研发中心', '测试组']]);
  });

  it('disables a user with "active": "False" (a string) and enables them with "True"', async () => {
    const off = await scim(app, 'PATCH', `/Users/${id.qian}`, patchOp({ op: 'Replace', path: 'active', value: 'False' }));
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.active).toBe(false);
    expect((await callAs(app, id.qian!, '/users/current/info')).body.error.code).toBe('token_user_inactive');
    const filteredOff = await scim(app, 'GET', filtered('/Users', `userName eq "${people.qian.userName}"`));
    expect(filteredOff.body.Resources[0].active).toBe(false);

    const on = await scim(app, 'PATCH', `/Users/${id.qian}`, patchOp({ op: 'Replace', value: { active: 'True' } }));
    expect(on.body.active).toBe(true);
    expect((await callAs(app, id.qian!, '/users/current/info')).status).toBe(200);
  });

  it('deletes users: a user is refused at once; one who created files is deactivated and keeps them; re-created, they are a new person', async () => {
    await upsertFiles(store().db, [documentBy(id.adele!, 'adele-report', 'contoso')]);
    expect((await scim(app, 'DELETE', `/Users/${id.qian}`)).status).toBe(204);
    expect((await scim(app, 'DELETE', `/Users/${id.adele}`)).status).toBe(204);
    expect((await scim(app, 'GET', `/Users/${id.qian}`)).status).toBe(404);
    expect((await scim(app, 'GET', `/Users/${id.adele}`)).status).toBe(404);
    expect((await callAs(app, id.qian!, '/users/current/info')).body.error.code).toBe('token_user_unknown');
    expect((await callAs(app, id.adele!, '/users/current/info')).body.error.code).toBe('token_user_inactive');
    expect((await callAs(app, id.wu!, `/users/${id.adele}`)).body).toMatchObject({ id: id.adele, name: 'Adele Vance' });
    expect(ids((await search(app, id.wu!, { type: 'team_member', keyword: 'qian' })).teamMembers)).toEqual([]);

    const back = await scim(app, 'POST', '/Users', entraUser(people.adele.userName, people.adele.externalId, 'Vance', 'Adele', 'R&D', 'Adele Vance'));
    expect(back.status, JSON.stringify(back.body)).toBe(201);
    expect(back.body.id).not.toBe(id.adele);
    expect((await callAs(app, back.body.id, '/users/current/info')).status).toBe(200);
    expect((await callAs(app, id.adele!, '/users/current/info')).body.error.code).toBe('token_user_inactive');
  });
});
