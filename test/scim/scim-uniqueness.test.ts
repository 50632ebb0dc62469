import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { filtered, GROUP_SCHEMA, patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

describeEachStore('SCIM uniqueness: externalId within the team, and conflicts that say nothing of other teams', (store) => {
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

  it('answers a userName whose id is a user of another team as any conflict, without saying where it lives', async () => {
    // "zhang" is a user of team acme (the fixture), not of this SCIM team.
    const other = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'Zhang' });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ scimType: 'uniqueness' });
    expect(other.body.detail).not.toMatch(/team|outside|belongs|acme/i);
    const inTeam = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'one@uniq.example' });
    expect(inTeam.status).toBe(409);
    expect(other.body.detail.replace('zhang', 'X')).toBe(inTeam.body.detail.replace('one@uniq.example', 'X'));
  });
});
