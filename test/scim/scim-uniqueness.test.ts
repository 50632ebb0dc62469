import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readUsers } from '../../src/store/directory-writes/directory-state.js';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { filtered, GROUP_SCHEMA, patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

describeEachStore('SCIM uniqueness: externalId within the team; users of other teams are never touched', (store) => {
  let app: FastifyInstance;
  let first: string;
  let second: string;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), scimConfig('uniqco'));
    first = (await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'one@uniq.example', externalId: 'ext-1' })).body.id;
    second = (await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'two@uniq.example', externalId: 'ext-2' })).body.id;
  });
  afterAll(async () => {
    await app.close();
  });

  it('refuses a second user or group with the same externalId (409 uniqueness); one filter finds one resource', async () => {
    const duplicate = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'three@uniq.example', externalId: 'ext-1' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toMatchObject({ scimType: 'uniqueness', detail: 'another user has this externalId' });
    const patched = await scim(app, 'PATCH', `/Users/${encodeURIComponent(second)}`, patchOp({ op: 'replace', path: 'externalId', value: 'ext-1' }));
    expect(patched.status).toBe(409);
    const put = await scim(app, 'PUT', `/Users/${encodeURIComponent(second)}`, { schemas: [USER_SCHEMA], userName: 'two@uniq.example', externalId: 'ext-1' });
    expect(put.status).toBe(409);
    // Keeping one's own externalId is no conflict; externalId is case-exact, so EXT-1 is another value.
    expect((await scim(app, 'PUT', `/Users/${encodeURIComponent(first)}`, { schemas: [USER_SCHEMA], userName: 'one@uniq.example', externalId: 'ext-1' })).status).toBe(200);
    expect((await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'four@uniq.example', externalId: 'EXT-1' })).status).toBe(201);
    const found = await scim(app, 'GET', filtered('/Users', 'externalId eq "ext-1"'));
    expect(found.body.Resources.map((user: { id: string }) => user.id)).toEqual([first]);

    expect((await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'A', externalId: 'g-1' })).status).toBe(201);
    const group = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'B', externalId: 'g-1' });
    expect(group.status).toBe(409);
    expect(group.body).toMatchObject({ scimType: 'uniqueness', detail: 'another group has this externalId' });
    expect((await scim(app, 'GET', '/Groups?count=0')).body.totalResults).toBe(1);
  });

  it("a userName that is the id of another team's user is a new user with a new id; that user is untouched", async () => {
    // "zhang" is a user of team acme (the fixture), not of this SCIM team: ids are not userNames.
    const before = await readUsers(store().db, ['zhang']);
    const created = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'Zhang', displayName: 'Someone Else' });
    expect(created.status).toBe(201);
    expect(created.body.id).not.toBe('zhang');
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readUsers(store().db, ['zhang'])).toEqual(before);
    expect(before[0]).toMatchObject({ teamId: 'acme' });
  });
});
