/**
 * Microsoft Entra ID's SCIM validation (the User, Group and SCIM tests of the Logic App validation
 * template in AzureAD/SCIMReferenceCode, "SCIM-Validation-Test-Overview.md"), as requests and assertions of
 * our own, each test named after the one it follows. The tests that go through Entra's provisioning
 * engine send what the engine sends (the requests of "Develop and plan provisioning for a SCIM endpoint"):
 * a lookup by userName or displayName, then POST; PATCH with capitalised ops; `active` as "False".
 * Left out: Validate_Credentials_Test and Federated_Identity_Test (OAuth and workload identity federation
 * against Azure; collab-host takes a static Bearer token).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { callAs } from '../sync/sync-helpers.js';
import { ENTERPRISE_SCHEMA, filtered, GROUP_SCHEMA, patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

type Answer = Awaited<ReturnType<typeof scim>>;

/** A user as Entra's default attribute mappings send it (manager aside). */
const entraUser = (userName: string, externalId: string, givenName: string, familyName: string) => ({
  schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
  externalId,
  userName,
  active: true,
  displayName: `${givenName} ${familyName}`,
  title: 'Engineer',
  emails: [{ primary: true, type: 'work', value: userName }],
  meta: { resourceType: 'User' },
  name: { formatted: `${givenName} ${familyName}`, familyName, givenName },
  [ENTERPRISE_SCHEMA]: { department: 'R&D', employeeNumber: externalId },
});

const MANAGER = `${ENTERPRISE_SCHEMA}:manager`;

const idsOf = (answer: Answer) => (answer.body.Resources as Array<{ id: string }>).map((resource) => resource.id);

describeEachStore("Microsoft Entra ID's SCIM validation", (store) => {
  let app: FastifyInstance;
  let serial = 0;

  beforeAll(async () => {
    app = await buildTestApp(store(), scimConfig('entra-validation'));
  });
  afterAll(async () => {
    await app.close();
  });

  /** What the provisioning engine does for a new assignment: look the user up by userName, then create. */
  const provisionUser = async (prefix: string) => {
    serial += 1;
    const userName = `${prefix}${serial}@contoso.example`;
    const lookup = await scim(app, 'GET', filtered('/Users', `userName eq "${userName}"`));
    expect(lookup.status).toBe(200);
    expect(lookup.body.totalResults).toBe(0);
    const created = await scim(app, 'POST', '/Users', entraUser(userName, `ext-${prefix}-${serial}`, 'Test', `${prefix} ${serial}`));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return { id: created.body.id as string, userName };
  };

  const provisionGroup = async (displayName: string) => {
    const lookup = await scim(app, 'GET', filtered('/Groups', `displayName eq "${displayName}"`, '&excludedAttributes=members'));
    expect(lookup.status).toBe(200);
    expect(lookup.body.totalResults).toBe(0);
    const created = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], externalId: `ext-${displayName}`, displayName, meta: { resourceType: 'Group' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.id as string;
  };

  const findUser = (userName: string) => scim(app, 'GET', filtered('/Users', `userName eq "${userName}"`));
  const findGroup = (displayName: string) => scim(app, 'GET', filtered('/Groups', `displayName eq "${displayName}"`, '&excludedAttributes=members'));
  const memberIds = async (groupId: string) => (((await scim(app, 'GET', `/Groups/${groupId}`)).body.members ?? []) as Array<{ value: string }>).map((member) => member.value);

  describe('UserTests', () => {
    it('Create_User_Test', async () => {
      const { id, userName } = await provisionUser('create');
      expect(idsOf(await findUser(userName))).toEqual([id]);
    });

    it('Update_User_Test', async () => {
      const { id } = await provisionUser('update');
      const update = await scim(
        app,
        'PATCH',
        `/Users/${id}`,
        patchOp(
          { op: 'Replace', path: 'title', value: 'Principal Engineer' },
          { op: 'Replace', path: `${ENTERPRISE_SCHEMA}:department`, value: 'Platform' },
          { op: 'Replace', path: 'displayName', value: 'Test Updated' },
        ),
      );
      expect(update.status, JSON.stringify(update.body)).toBe(200);
      const read = await scim(app, 'GET', `/Users/${id}`);
      expect(read.body).toMatchObject({ title: 'Principal Engineer', displayName: 'Test Updated' });
      expect(read.body[ENTERPRISE_SCHEMA].department).toBe('Platform');
    });

    it('Disable_User_Test', async () => {
      const { id } = await provisionUser('disable');
      const disabled = await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'Replace', path: 'active', value: 'False' }));
      expect(disabled.status, JSON.stringify(disabled.body)).toBe(200);
      expect((await scim(app, 'GET', `/Users/${id}`)).body.active).toBe(false);
      expect((await callAs(app, id, '/users/current/info')).body.error.code).toBe('token_user_inactive');
    });

    it('Delete_User_Test', async () => {
      const { id, userName } = await provisionUser('delete');
      expect((await scim(app, 'DELETE', `/Users/${id}`)).status).toBe(204);
      expect((await scim(app, 'GET', `/Users/${id}`)).status).toBe(404);
      expect((await findUser(userName)).body.totalResults).toBe(0);
    });

    it('Restore_User_Test', async () => {
      // Phase 1: assigned and provisioned. Phase 2: unassigned, deleted. Phase 3: assigned again, created again.
      const first = await provisionUser('restore');
      expect(idsOf(await findUser(first.userName))).toEqual([first.id]);
      expect((await scim(app, 'DELETE', `/Users/${first.id}`)).status).toBe(204);
      expect((await findUser(first.userName)).body.totalResults).toBe(0);
      const again = await scim(app, 'POST', '/Users', entraUser(first.userName, 'ext-restore', 'Test', 'Restore'));
      expect(again.status, JSON.stringify(again.body)).toBe(201);
      expect(idsOf(await findUser(first.userName))).toEqual([again.body.id]);
      expect((await callAs(app, again.body.id, '/users/current/info')).status).toBe(200);
    });

    it('POD_User_Test', async () => {
      // Provision on demand sends the same lookup and create at once, outside the sync cycle.
      const { id, userName } = await provisionUser('pod');
      expect(idsOf(await findUser(userName))).toEqual([id]);
      expect((await scim(app, 'GET', `/Users/${id}`)).body.userName).toBe(userName);
    });
  });

  describe('GroupTests', () => {
    it('Create_Group_Test', async () => {
      const id = await provisionGroup('Entra Create');
      expect(idsOf(await findGroup('Entra Create'))).toEqual([id]);
    });

    it('Update_Group_Test', async () => {
      const id = await provisionGroup('Entra Update');
      const renamed = await scim(app, 'PATCH', `/Groups/${id}`, patchOp({ op: 'Replace', path: 'displayName', value: 'Entra Updated' }));
      expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
      expect(idsOf(await findGroup('Entra Updated'))).toEqual([id]);
    });

    it('Delete_Group_Test', async () => {
      const id = await provisionGroup('Entra Delete');
      expect((await scim(app, 'DELETE', `/Groups/${id}`)).status).toBe(204);
      expect((await findGroup('Entra Delete')).body.totalResults).toBe(0);
    });

    it('Group_Update_Add_Member_Test', async () => {
      const id = await provisionGroup('Entra Add Member');
      const { id: member } = await provisionUser('member');
      const added = await scim(app, 'PATCH', `/Groups/${id}`, patchOp({ op: 'Add', path: 'members', value: [{ value: member }] }));
      expect(added.status, JSON.stringify(added.body)).toBe(200);
      expect(await memberIds(id)).toEqual([member]);
    });

    it('Group_Update_Remove_Member_Test', async () => {
      const id = await provisionGroup('Entra Remove Member');
      const { id: member } = await provisionUser('leaving');
      await scim(app, 'PATCH', `/Groups/${id}`, patchOp({ op: 'Add', path: 'members', value: [{ value: member }] }));
      expect(await memberIds(id)).toEqual([member]);
      const removed = await scim(app, 'PATCH', `/Groups/${id}`, patchOp({ op: 'Remove', path: 'members', value: [{ value: member }] }));
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      expect(await memberIds(id)).toEqual([]);
    });

    it('POD_Group_Test', async () => {
      const id = await provisionGroup('Entra On Demand');
      const { id: member } = await provisionUser('ondemand');
      expect((await scim(app, 'PATCH', `/Groups/${id}`, patchOp({ op: 'Add', path: 'members', value: [{ value: member }] }))).status).toBe(200);
      expect(idsOf(await findGroup('Entra On Demand'))).toEqual([id]);
      expect(await memberIds(id)).toEqual([member]);
    });

    it('Restore_Group_Test', async () => {
      const first = await provisionGroup('Entra Restore');
      expect((await scim(app, 'DELETE', `/Groups/${first}`)).status).toBe(204);
      expect((await findGroup('Entra Restore')).body.totalResults).toBe(0);
      const again = await provisionGroup('Entra Restore');
      expect(idsOf(await findGroup('Entra Restore'))).toEqual([again]);
    });
  });

  describe('SCIMTests', () => {
    it('SCIM_User_Create_Test', async () => {
      const userName = 'direct.create@contoso.example';
      const created = await scim(app, 'POST', '/Users', entraUser(userName, 'ext-direct', 'Direct', 'Create'));
      expect([200, 201]).toContain(created.status);
      expect(created.body.id).toBeTruthy();
      expect(created.body.userName).toBe(userName);
    });

    it('SCIM_User_Update_Test', async () => {
      const { id } = await provisionUser('direct-update');
      // Every single-valued, non-reference attribute the mappings send, given a new value.
      const values: Record<string, string> = {
        userName: 'direct.update.renamed@contoso.example',
        displayName: 'Renamed Person',
        title: 'Architect',
        preferredLanguage: 'zh-CN',
        'name.givenName': 'Renamed',
        'name.familyName': 'Person',
        'name.formatted': 'Renamed Person',
        externalId: 'ext-renamed',
        [`${ENTERPRISE_SCHEMA}:department`]: 'Sales',
        [`${ENTERPRISE_SCHEMA}:employeeNumber`]: 'E-0042',
      };
      const update = await scim(app, 'PATCH', `/Users/${id}`, patchOp(...Object.entries(values).map(([path, value]) => ({ op: 'Replace', path, value }))));
      expect(update.status, JSON.stringify(update.body)).toBe(200);
      const read = await scim(app, 'GET', `/Users/${id}`);
      expect(read.status).toBe(200);
      const valueAt = (path: string) => {
        if (path.startsWith(`${ENTERPRISE_SCHEMA}:`)) return read.body[ENTERPRISE_SCHEMA]?.[path.slice(ENTERPRISE_SCHEMA.length + 1)];
        return path.split('.').reduce<unknown>((value, part) => (value as Record<string, unknown> | undefined)?.[part], read.body);
      };
      const mismatches = Object.entries(values).filter(([path, value]) => valueAt(path) !== value);
      expect(mismatches).toEqual([]);
    });

    it('SCIM_Group_Create_Test', async () => {
      const created = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Direct Create' });
      expect([200, 201]).toContain(created.status);
      expect(created.body.id).toBeTruthy();
      expect(created.body.displayName).toBe('Direct Create');
    });

    it('SCIM_Group_Update_Test', async () => {
      const id = await provisionGroup('Direct Update');
      const values = { displayName: 'Direct Updated', externalId: 'ext-direct-updated' };
      const update = await scim(app, 'PATCH', `/Groups/${id}`, patchOp(...Object.entries(values).map(([path, value]) => ({ op: 'Replace', path, value }))));
      expect(update.status, JSON.stringify(update.body)).toBe(200);
      expect((await scim(app, 'GET', `/Groups/${id}`)).body).toMatchObject(values);
    });

    it('Schema_Discoverability_Test', async () => {
      // The schemas the mappings need are discoverable, with every attribute Entra ID maps, externalId included.
      const answer = await scim(app, 'GET', '/Schemas');
      expect(answer.status).toBe(200);
      const schemas = answer.body.Resources as Array<{ id: string; attributes: Array<{ name: string; subAttributes?: Array<{ name: string }> }> }>;
      expect(schemas.map((schema) => schema.id)).toEqual(expect.arrayContaining([USER_SCHEMA, GROUP_SCHEMA, ENTERPRISE_SCHEMA]));
      const namesOf = (id: string) => schemas.find((schema) => schema.id === id)!.attributes.map((attribute) => attribute.name);
      expect(namesOf(USER_SCHEMA)).toEqual(expect.arrayContaining(['userName', 'externalId', 'active', 'displayName', 'title', 'emails', 'name', 'preferredLanguage']));
      expect(namesOf(GROUP_SCHEMA)).toEqual(expect.arrayContaining(['displayName', 'externalId', 'members']));
      expect(namesOf(ENTERPRISE_SCHEMA)).toEqual(expect.arrayContaining(['department', 'employeeNumber', 'manager']));
    });

    it('SCIM_Null_Update_Test', async () => {
      const { id } = await provisionUser('null-update');
      const paths = ['title', 'preferredLanguage', 'name.givenName', `${ENTERPRISE_SCHEMA}:department`, `${ENTERPRISE_SCHEMA}:employeeNumber`];
      expect((await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'Replace', path: 'preferredLanguage', value: 'zh-CN' }))).status).toBe(200);
      const unset = (body: Record<string, unknown>) => {
        const enterprise = body[ENTERPRISE_SCHEMA] as Record<string, unknown> | undefined;
        return [body.title, body.preferredLanguage, (body.name as Record<string, unknown> | undefined)?.givenName, enterprise?.department, enterprise?.employeeNumber];
      };
      for (const value of ['', null]) {
        const update = await scim(app, 'PATCH', `/Users/${id}`, patchOp(...paths.map((path) => ({ op: 'Replace', path, value }))));
        expect(update.status, JSON.stringify(update.body)).toBe(200);
        const read = await scim(app, 'GET', `/Users/${id}`);
        expect(read.status).toBe(200);
        expect(unset(read.body), JSON.stringify(value)).toEqual([undefined, undefined, undefined, undefined, undefined]);
        // What was not named stays.
        expect(read.body).toMatchObject({ displayName: expect.stringMatching(/^Test null-update \d+$/), active: true });
      }
    });

    it('User_Update_Manager_Test', async () => {
      const { id } = await provisionUser('managed');
      const { id: first } = await provisionUser('manager');
      const { id: second } = await provisionUser('manager');
      const managerOf = async () => ((await scim(app, 'GET', `/Users/${id}`)).body[ENTERPRISE_SCHEMA] as Record<string, unknown> | undefined)?.manager;
      // The engine sends the manager's id as the value of an Add, for a first manager and for a new one.
      expect((await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'Add', path: MANAGER, value: first }))).status).toBe(200);
      expect(await managerOf()).toEqual({ value: first });
      expect((await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'Add', path: MANAGER, value: second }))).status).toBe(200);
      expect(await managerOf()).toEqual({ value: second });
      expect((await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'Remove', path: MANAGER }))).status).toBe(200);
      expect(await managerOf()).toBeUndefined();
    });

    it('SCIM_Update_Manager_Test', async () => {
      const { id } = await provisionUser('direct-managed');
      const { id: manager } = await provisionUser('direct-manager');
      const { id: other } = await provisionUser('direct-manager');
      const patched = async (operation: Record<string, unknown>) => {
        const answer = await scim(app, 'PATCH', `/Users/${id}`, patchOp(operation));
        expect(answer.status, JSON.stringify(answer.body)).toBe(200);
        const read = await scim(app, 'GET', `/Users/${id}`);
        expect(read.body[ENTERPRISE_SCHEMA]?.manager).toEqual(answer.body[ENTERPRISE_SCHEMA]?.manager);
        return (read.body[ENTERPRISE_SCHEMA] as Record<string, unknown> | undefined)?.manager;
      };
      expect(await patched({ op: 'Add', path: MANAGER, value: manager })).toEqual({ value: manager });
      expect(await patched({ op: 'Replace', path: MANAGER, value: other })).toEqual({ value: other });
      expect(await patched({ op: 'Remove', path: MANAGER, value: '' })).toBeUndefined();
      // The other attributes of the extension stay.
      expect((await scim(app, 'GET', `/Users/${id}`)).body[ENTERPRISE_SCHEMA]).toMatchObject({ department: 'R&D' });
    });

    /** Makes sure at least 11 resources exist, pages through them 5 at a time, then removes what it made (every one: the team may end empty). */
    const paginate = async (endpoint: '/Users' | '/Groups', make: (n: number) => Promise<string>) => {
      const made: string[] = [];
      for (let n = (await scim(app, 'GET', `${endpoint}?count=0`)).body.totalResults as number; n < 11; n += 1) made.push(await make(n));
      const total = (await scim(app, 'GET', `${endpoint}?count=0`)).body.totalResults as number;
      const seen: string[] = [];
      let page = 0;
      for (; page * 5 < total; page += 1) {
        const answer = await scim(app, 'GET', `${endpoint}?startIndex=${page * 5 + 1}&count=5`);
        expect(answer.status).toBe(200);
        expect(answer.body.startIndex).toBe(page * 5 + 1);
        expect(answer.body.totalResults).toBe(total);
        seen.push(...idsOf(answer));
      }
      expect(page).toBeGreaterThanOrEqual(2);
      expect(new Set(seen).size).toBe(total);
      for (const id of made) expect((await scim(app, 'DELETE', `${endpoint}/${id}`)).status).toBe(204);
    };

    it('SCIM_User_Pagination_Test', async () => {
      await paginate('/Users', async (n) => (await scim(app, 'POST', '/Users', entraUser(`page${n}@contoso.example`, `ext-page-${n}`, 'Page', `User ${n}`))).body.id as string);
      // The clean-up of every user of the team, the last active one included, is never refused.
      for (const id of idsOf(await scim(app, 'GET', '/Users'))) expect((await scim(app, 'DELETE', `/Users/${id}`)).status).toBe(204);
      expect((await scim(app, 'GET', '/Users?count=0')).body.totalResults).toBe(0);
    });

    it('SCIM_Group_Pagination_Test', async () => {
      await paginate('/Groups', async (n) => (await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: `Page Group ${n}` })).body.id as string);
    });
  });
});
