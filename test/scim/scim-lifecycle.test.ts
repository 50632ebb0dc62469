/**
 * A person's whole life through SCIM, as docs/sync.md "Lifecycle" describes it: hire, rename, move
 * department, manager change, deactivate, reactivate, delete, rehire with the same e-mail. Ids are issued
 * by the server and never reassigned (RFC 7643 §3.1): a name freed by a rename or a delete goes to a new
 * person with a new id, the leaver's files and name stay the leaver's, and the leaver's token is refused.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { composeDirectoryChanges } from '../../src/composition/directory-writes.js';
import { upsertFiles } from '../../src/store/directory-writes/directory-writer.js';
import { sqlScimResources } from '../../src/store/directory-writes/scim-resources.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { ids, search } from '../search/search-http.js';
import { callAs, departmentPaths, documentBy } from '../sync/sync-helpers.js';
import { ENTERPRISE_SCHEMA, filtered, GROUP_SCHEMA, patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

const person = (userName: string, displayName: string, email = userName) => ({
  schemas: [USER_SCHEMA],
  userName,
  displayName,
  emails: [{ value: email, type: 'work', primary: true }],
  active: true,
});

const byUserName = async (app: FastifyInstance, userName: string) =>
  (await scim(app, 'GET', filtered('/Users', `userName eq "${userName}"`))).body.Resources.map((user: { id: string }) => user.id);

const config = scimConfig('lifeco');

describeEachStore('SCIM lifecycle: ids issued by the server, never reassigned', (store) => {
  let app: FastifyInstance;
  let alice: string;
  let boss: string;
  let sales: string;
  let support: string;

  beforeAll(async () => {
    app = await buildTestApp(store(), config);
    const created = await scim(app, 'POST', '/Users', person('boss@life.example', 'Big Boss'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    boss = created.body.id;
    sales = (await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Sales' })).body.id;
    support = (await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Support' })).body.id;
  });
  afterAll(async () => {
    await app.close();
  });

  it('hire: a new user gets a new opaque id, and a token for it works', async () => {
    const hired = await scim(app, 'POST', '/Users', person('Alice@Life.example', 'Alice Smith'));
    expect(hired.status, JSON.stringify(hired.body)).toBe(201);
    alice = hired.body.id;
    expect(alice).not.toMatch(/alice/i);
    expect(alice).not.toBe(boss);
    expect((await callAs(app, alice, '/users/current/info')).body).toMatchObject({ id: alice, name: 'Alice Smith', email: 'Alice@Life.example' });
    // userName is unique among current users, case-insensitively.
    const twin = await scim(app, 'POST', '/Users', person('ALICE@life.EXAMPLE', 'Someone Else'));
    expect(twin.status).toBe(409);
    expect(twin.body.scimType).toBe('uniqueness');
  });

  it('two creates of one userName at once make one person; the others are told it exists', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => scim(app, 'POST', '/Users', person('twin@life.example', 'Twin'))));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409]);
    const [winner] = answers.filter((answer) => answer.status === 201);
    expect(await byUserName(app, 'twin@life.example')).toEqual([winner!.body.id]);
    // No directory user was left behind by the losers: the team lists the winner only.
    expect(ids((await search(app, boss, { type: 'team_member', keyword: 'Twin' })).teamMembers)).toEqual([winner!.body.id]);
    expect((await scim(app, 'DELETE', `/Users/${winner!.body.id}`)).status).toBe(204);
  });

  it('rename: the id stays, the old userName is free and a new hire who takes it is a different person', async () => {
    const renamed = await scim(app, 'PATCH', `/Users/${alice}`, patchOp({ op: 'replace', path: 'userName', value: 'alice.smith@life.example' }));
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.id).toBe(alice);
    expect(await byUserName(app, 'alice@life.example')).toEqual([]);
    expect(await byUserName(app, 'alice.smith@life.example')).toEqual([alice]);

    const newcomer = await scim(app, 'POST', '/Users', person('alice@life.example', 'Alice Jones'));
    expect(newcomer.status, JSON.stringify(newcomer.body)).toBe(201);
    expect(newcomer.body.id).not.toBe(alice);
    expect((await callAs(app, newcomer.body.id, '/users/current/info')).body.name).toBe('Alice Jones');
    expect((await callAs(app, alice, '/users/current/info')).body.name).toBe('Alice Smith');
  });

  it('move department: from one group to another', async () => {
    expect((await scim(app, 'PATCH', `/Groups/${sales}`, patchOp({ op: 'add', path: 'members', value: [{ value: alice }] }))).status).toBe(200);
    expect(await departmentPaths(app, boss, alice)).toEqual([['Sales']]);
    expect((await scim(app, 'PATCH', `/Groups/${sales}`, patchOp({ op: 'remove', path: `members[value eq "${alice}"]` }))).status).toBe(200);
    expect((await scim(app, 'PATCH', `/Groups/${support}`, patchOp({ op: 'add', path: 'members', value: [{ value: alice }] }))).status).toBe(200);
    expect(await departmentPaths(app, boss, alice)).toEqual([['Support']]);
  });

  it('manager change: kept and answered back', async () => {
    const changed = await scim(app, 'PATCH', `/Users/${alice}`, patchOp({ op: 'replace', value: { [ENTERPRISE_SCHEMA]: { manager: { value: boss } } } }));
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body[ENTERPRISE_SCHEMA].manager.value).toBe(boss);
    expect((await scim(app, 'GET', `/Users/${alice}`)).body[ENTERPRISE_SCHEMA].manager.value).toBe(boss);
  });

  it('deactivate and reactivate: the token is refused while inactive, and works again after', async () => {
    const off = await scim(app, 'PATCH', `/Users/${alice}`, patchOp({ op: 'replace', path: 'active', value: false }));
    expect(off.body.active).toBe(false);
    expect((await callAs(app, alice, '/users/current/info')).body.error.code).toBe('token_user_inactive');
    const on = await scim(app, 'PATCH', `/Users/${alice}`, patchOp({ op: 'replace', path: 'active', value: true }));
    expect(on.body.active).toBe(true);
    expect((await callAs(app, alice, '/users/current/info')).status).toBe(200);
  });

  it('delete and rehire with the same e-mail: a new person; the leaver keeps their files and name, and their token stays refused', async () => {
    await upsertFiles(store().db, [documentBy(alice, 'alice-plan', 'lifeco')]);
    expect((await scim(app, 'DELETE', `/Users/${alice}`)).status).toBe(204);
    expect((await scim(app, 'GET', `/Users/${alice}`)).status).toBe(404);
    expect((await callAs(app, alice, '/users/current/info')).body.error.code).toBe('token_user_inactive');

    const rehired = await scim(app, 'POST', '/Users', person('alice.smith@life.example', 'Alice Smith-Chen'));
    expect(rehired.status, JSON.stringify(rehired.body)).toBe(201);
    const again = rehired.body.id as string;
    expect(again).not.toBe(alice);
    expect(await byUserName(app, 'alice.smith@life.example')).toEqual([again]);
    expect((await callAs(app, again, '/users/current/info')).body).toMatchObject({ id: again, name: 'Alice Smith-Chen' });
    // The leaver's token never authenticates as the new holder of the name.
    expect((await callAs(app, alice, '/users/current/info')).body.error.code).toBe('token_user_inactive');
    // What the leaver wrote stays the leaver's.
    expect((await callAs(app, boss, `/users/${alice}`)).body).toMatchObject({ id: alice, name: 'Alice Smith' });
    expect((await callAs(app, again, `/users/${again}`)).body.name).toBe('Alice Smith-Chen');
  });

  it('delete a user with no files and rehire: the old id is gone for good, the token stays unknown', async () => {
    const [jones] = await byUserName(app, 'alice@life.example');
    expect((await scim(app, 'DELETE', `/Users/${jones}`)).status).toBe(204);
    expect((await callAs(app, jones, '/users/current/info')).body.error.code).toBe('token_user_unknown');
    const rehired = await scim(app, 'POST', '/Users', person('alice@life.example', 'Alice Jones'));
    expect(rehired.status).toBe(201);
    expect(rehired.body.id).not.toBe(jones);
    expect((await callAs(app, jones, '/users/current/info')).body.error.code).toBe('token_user_unknown');
    expect((await callAs(app, rehired.body.id, '/users/current/info')).status).toBe(200);
  });

  it('two creates of one group displayName at once make one group', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Twins' })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409]);
    const listed = await scim(app, 'GET', filtered('/Groups', 'displayName eq "Twins"'));
    expect(listed.body.Resources.map((group: { id: string }) => group.id)).toEqual(answers.filter((answer) => answer.status === 201).map((answer) => answer.body.id));
  });

  it('a user provisioned when the id was the userName keeps that id: read, renamed, deleted, and rehired as a new person', async () => {
    // What an earlier version stored: the directory user and the SCIM resource, both with id = userName.
    const legacy = 'legacy@life.example';
    const written = await composeDirectoryChanges(config, store()).apply(
      { upsert: { users: [{ id: legacy, name: 'Lee Gacy', email: legacy, teamId: 'lifeco' }] } },
      { source: 'scim' },
    );
    expect(written.ok).toBe(true);
    const now = new Date().toISOString();
    await sqlScimResources(store().db).put({
      kind: 'User',
      id: legacy,
      teamId: 'lifeco',
      nameKey: legacy,
      externalId: null,
      attributes: { userName: legacy, displayName: 'Lee Gacy' },
      createdAt: now,
      updatedAt: now,
    });

    expect(await byUserName(app, legacy)).toEqual([legacy]);
    const renamed = await scim(app, 'PATCH', `/Users/${encodeURIComponent(legacy)}`, patchOp({ op: 'replace', path: 'userName', value: 'lee.gacy@life.example' }));
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.id).toBe(legacy);
    expect((await callAs(app, legacy, '/users/current/info')).status).toBe(200);
    expect((await scim(app, 'DELETE', `/Users/${encodeURIComponent(legacy)}`)).status).toBe(204);
    const rehired = await scim(app, 'POST', '/Users', person(legacy, 'Lee Gacy'));
    expect(rehired.status).toBe(201);
    expect(rehired.body.id).not.toBe(legacy);
    expect((await callAs(app, legacy, '/users/current/info')).body.error.code).toBe('token_user_unknown');
  });

  it("groups: a deleted group's name goes to a new group with a new id", async () => {
    expect((await scim(app, 'DELETE', `/Groups/${sales}`)).status).toBe(204);
    const recreated = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'sales' });
    expect(recreated.status, JSON.stringify(recreated.body)).toBe(201);
    expect(recreated.body.id).not.toBe(sales);
    expect((await scim(app, 'GET', `/Groups/${sales}`)).status).toBe(404);
    const renamed = await scim(app, 'PATCH', `/Groups/${support}`, patchOp({ op: 'replace', path: 'displayName', value: 'Customer Care' }));
    expect(renamed.body.id).toBe(support);
    const reuse = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Support' });
    expect(reuse.status).toBe(201);
    expect(reuse.body.id).not.toBe(support);
  });
});
