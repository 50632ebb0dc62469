import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { patchOp, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

/**
 * Identity providers send a user's `password` on create and replace (Okta does). SCIM makes it
 * write-only (RFC 7643 §4.1) and collab-host never uses it: it is not kept anywhere an operator, a backup
 * or a DBA would find it, and the user's answers and versions are what they are without it.
 */
describeEachStore('SCIM: a password sent is not kept', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), scimConfig('acme'));
  });
  afterAll(async () => {
    await app.close();
  });

  /** Every stored SCIM resource's attributes, as a DBA or a backup reads them. */
  const storedText = async () => (await store().db.selectFrom('scim_resources').select('attributes').execute()).map((row) => row.attributes).join('\n');

  it('stores a created, replaced or patched user without the password, and answers alike', async () => {
    const user = { schemas: [USER_SCHEMA], userName: 'keeper@acme.example', displayName: 'Keeper', password: 'Create-Secret-1', active: true };
    const created = await scim(app, 'POST', '/Users', user);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.password).toBeUndefined();
    const id = created.body.id as string;
    expect(await storedText()).not.toContain('Create-Secret-1');
    expect(await storedText()).not.toMatch(/"password"/i);
    // The answer of the create is what a read answers, version included.
    const read = await scim(app, 'GET', `/Users/${id}`);
    expect(read.body).toEqual(created.body);

    const replaced = await scim(app, 'PUT', `/Users/${id}`, { ...user, displayName: 'Keeper Two', password: 'Replace-Secret-2' });
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body).toMatchObject({ displayName: 'Keeper Two' });
    expect(await storedText()).not.toContain('Replace-Secret-2');

    const patched = await scim(app, 'PATCH', `/Users/${id}`, patchOp({ op: 'replace', path: 'password', value: 'Patch-Secret-4' }));
    expect(patched.status, JSON.stringify(patched.body)).toBeLessThan(500);
    expect(patched.body.password).toBeUndefined();
    expect(await storedText()).not.toContain('Patch-Secret-4');
    expect((await scim(app, 'GET', `/Users/${id}`)).body).toMatchObject({ userName: 'keeper@acme.example', displayName: 'Keeper Two', active: true });
  });
});
