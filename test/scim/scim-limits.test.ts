import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { GROUP_SCHEMA, patchOp, scim, scimConfig, USER_SCHEMA, type ScimAnswer } from './scim-client.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const ADMIN_KEY = 'admin-key-0123456789abcdef';

function expectRefused(answer: ScimAnswer, status: number, scimType: string | undefined, detail: RegExp): void {
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(status);
  expect(answer.body).toMatchObject({ schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}) });
  expect(answer.body.detail).toMatch(detail);
}

describeEachStore('SCIM strings by the shared text rule, and bounded work per request', (store) => {
  let app: FastifyInstance;
  let userId: string;
  let groupId: string;
  beforeAll(async () => {
    app = await buildTestApp(store(), { ...scimConfig('limitco'), adminApiKey: ADMIN_KEY });
    const user = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'kept@limit.example', displayName: 'Kept', emails: [{ value: 'kept@limit.example' }] });
    expect(user.status).toBe(201);
    userId = user.body.id;
    const group = await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Kept group' });
    expect(group.status).toBe(201);
    groupId = group.body.id;
  });
  afterAll(async () => {
    await app.close();
  });

  /** What the directory and SCIM hold, to show that a refused request wrote nothing. */
  const holdings = async () => ({
    users: (await scim(app, 'GET', '/Users')).body.Resources,
    groups: (await scim(app, 'GET', '/Groups')).body.Resources,
    summary: (await app.inject({ method: 'GET', url: '/api/directory/summary', headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json(),
  });

  it('refuses lone surrogates, NUL and over-long names with 400 invalidValue naming the attribute, and writes nothing', async () => {
    const before = await holdings();
    const user = (extra: object) => ({ schemas: [USER_SCHEMA], userName: 'new@limit.example', ...extra });
    expectRefused(await scim(app, 'POST', '/Users', user({ userName: 'z\ud800@limit.example' })), 400, 'invalidValue', /^userName is not well-formed Unicode/);
    expectRefused(await scim(app, 'POST', '/Users', user({ userName: 'nul\u0000@limit.example' })), 400, 'invalidValue', /^userName contains a NUL/);
    expectRefused(await scim(app, 'POST', '/Users', user({ name: { givenName: 'a\udc00' } })), 400, 'invalidValue', /^name\.givenName /);
    expectRefused(await scim(app, 'POST', '/Users', user({ emails: [{ value: 'a\u0000@x' }] })), 400, 'invalidValue', /^emails\[0\]\.value /);
    expectRefused(await scim(app, 'POST', '/Users', user({ userName: `${'u'.repeat(501)}@x` })), 400, 'invalidValue', /^userName must have at most 500 characters/);
    expectRefused(await scim(app, 'POST', '/Users', user({ displayName: 'd'.repeat(501) })), 400, 'invalidValue', /^displayName must have at most 500/);
    expectRefused(await scim(app, 'POST', '/Users', user({ externalId: 'e'.repeat(256) })), 400, 'invalidValue', /^externalId must have at most 255/);
    expectRefused(await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'g'.repeat(900_000) }), 400, 'invalidValue', /^displayName must have at most 500/);
    expectRefused(await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'G\u0000' }), 400, 'invalidValue', /^displayName contains a NUL/);
    expectRefused(
      await scim(app, 'PATCH', `/Users/${encodeURIComponent(userId)}`, patchOp({ op: 'replace', path: 'displayName', value: 'x\ud800' })),
      400,
      'invalidValue',
      /Operations\[0\]\.value is not well-formed/,
    );
    expectRefused(
      await scim(app, 'PATCH', `/Users/${encodeURIComponent(userId)}`, patchOp({ op: 'replace', path: 'displayName', value: 'x'.repeat(501) })),
      400,
      'invalidValue',
      /^displayName must have at most 500/,
    );
    expectRefused(
      await scim(app, 'PATCH', `/Groups/${groupId}`, patchOp({ op: 'replace', value: { displayName: 'y'.repeat(501) } })),
      400,
      'invalidValue',
      /^displayName must have at most 500/,
    );
    expect(await holdings()).toEqual(before);
  });

  it('caps the operations of a PatchOp, the values of multi-valued attributes and the size of a stored resource', async () => {
    const before = await holdings();
    const url = `/Users/${encodeURIComponent(userId)}`;
    const addEmail = (index: number) => ({ op: 'add', path: 'emails', value: [{ value: `e${index}@limit.example`, type: 'other' }] });
    const tooManyOperations = await scim(app, 'PATCH', url, patchOp(...Array.from({ length: 1001 }, (_, index) => addEmail(index))));
    expectRefused(tooManyOperations, 400, 'tooMany', /at most 1000 operations; this one holds 1001/);

    const started = performance.now();
    const growing = await scim(app, 'PATCH', url, patchOp(...Array.from({ length: 1000 }, (_, index) => addEmail(index))));
    expectRefused(growing, 400, 'tooMany', /^emails would hold \d+ values, more than the 100 allowed/);
    // Bounded work: the largest PatchOp allowed is refused well within a second or two, not many seconds.
    expect(performance.now() - started).toBeLessThan(5000);

    const manyValues = { schemas: [USER_SCHEMA], userName: 'many@limit.example', phoneNumbers: Array.from({ length: 101 }, (_, index) => ({ value: `+86 ${index}` })) };
    expectRefused(await scim(app, 'POST', '/Users', manyValues), 400, 'tooMany', /^phoneNumbers has 101 values, more than the 100 allowed/);

    const big = { schemas: [USER_SCHEMA], userName: 'big@limit.example', addresses: Array.from({ length: 20 }, () => ({ streetAddress: 'a'.repeat(4000) })) };
    expectRefused(await scim(app, 'POST', '/Users', big), 413, undefined, /the user would take \d+ characters, more than the 65536 a resource may hold/);
    expect(await holdings()).toEqual(before);

    // Within the limits the same requests work.
    const fine = await scim(app, 'PATCH', url, patchOp(...Array.from({ length: 50 }, (_, index) => addEmail(index))));
    expect(fine.status, JSON.stringify(fine.body).slice(0, 300)).toBe(200);
    expect(fine.body.emails).toHaveLength(51);
  });
});
