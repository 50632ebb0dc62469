/**
 * Okta's SCIM 2.0 spec test (the Runscope suite of "Test your SCIM API", Okta-SCIM-20-SPEC-Test.json), as
 * requests and assertions of our own: each test is named after the one it follows. The suite's random
 * e-mails are fixed values here; its 600 ms bound on /Groups is left to the benchmarks.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { filtered, scim, scimConfig, USER_SCHEMA } from './scim-client.js';

const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** The body of "Create Okta user with realistic values". */
const realistic = (userName: string, email: string, givenName: string, familyName: string) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName, familyName },
  emails: [{ primary: true, value: email, type: 'work' }],
  displayName: `${givenName} ${familyName}`,
  active: true,
});

describeEachStore("Okta's SCIM 2.0 spec test", (store) => {
  let app: FastifyInstance;
  const created = realistic('Runscope74Ruth@atko.example', 'runscope74ruth@atko.example', 'Runscope74', 'Ruth');
  let createdId: string;

  beforeAll(async () => {
    app = await buildTestApp(store(), scimConfig('okta-spec'));
    // The suite runs against an app that already has users: one provisioned the way Okta does.
    const first = await scim(app, 'POST', '/Users', realistic('first.user@atko.example', 'first.user@atko.example', 'First', 'User'));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  it('Required Test: Test Users endpoint', async () => {
    const answer = await scim(app, 'GET', '/Users?count=1&startIndex=1');
    expect(answer.status).toBe(200);
    expect(answer.body.schemas).toContain(LIST);
    expect(answer.body.Resources).not.toHaveLength(0);
    for (const field of ['itemsPerPage', 'startIndex', 'totalResults']) expect(typeof answer.body[field], field).toBe('number');
    const [user] = answer.body.Resources;
    expect(user.id).toBeTruthy();
    expect(user.name.familyName).toBeTruthy();
    expect(user.name.givenName).toBeTruthy();
    expect(user.userName).toBeTruthy();
    expect(user.active).toBe(true);
    expect(user.emails[0].value).toBeTruthy();
  });

  it('Required Test: Get Users/{{id}}', async () => {
    const [first] = (await scim(app, 'GET', '/Users?count=1&startIndex=1')).body.Resources;
    const answer = await scim(app, 'GET', `/Users/${first.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(first.id);
    expect(answer.body.name.familyName).toBeTruthy();
    expect(answer.body.name.givenName).toBeTruthy();
    expect(answer.body.userName).toBeTruthy();
    expect(answer.body.active).toBe(true);
    expect(answer.body.emails[0].value).toBeTruthy();
  });

  it('Required Test: Test invalid User by username', async () => {
    const answer = await scim(app, 'GET', filtered('/Users', 'userName eq "qz7w1k3m@atko.example"'));
    expect(answer.status).toBe(200);
    expect(answer.body.schemas).toContain(LIST);
    expect(answer.body.totalResults).toBe(0);
  });

  it('Required Test: Test invalid User by ID', async () => {
    const answer = await scim(app, 'GET', '/Users/010101001010101010');
    expect(answer.status).toBe(404);
    expect(answer.body.detail).toBeTruthy();
    expect(answer.body.schemas).toContain(ERROR);
  });

  it("Required Test: Make sure random user doesn't exist", async () => {
    const answer = await scim(app, 'GET', filtered('/Users', `userName eq "${created.userName}"`));
    expect(answer.status).toBe(200);
    expect(answer.body.totalResults).toBe(0);
    expect(answer.body.schemas).toContain(LIST);
  });

  it('Required Test: Create Okta user with realistic values', async () => {
    const answer = await scim(app, 'POST', '/Users', created);
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    expect(answer.body.active).toBe(true);
    expect(answer.body.id).toBeTruthy();
    expect(answer.body.name).toMatchObject({ familyName: 'Ruth', givenName: 'Runscope74' });
    expect(answer.body.schemas).toContain(USER_SCHEMA);
    expect(answer.body.userName).toBe(created.userName);
    createdId = answer.body.id;
  });

  it('Required Test: Verify Okta user was created', async () => {
    const answer = await scim(app, 'GET', `/Users/${createdId}`);
    expect(answer.status).toBe(200);
    expect(answer.body.userName).toBe(created.userName);
    expect(answer.body.name).toMatchObject({ familyName: 'Ruth', givenName: 'Runscope74' });
  });

  it('Required Test: Expect failure when recreating user with same values', async () => {
    const answer = await scim(app, 'POST', '/Users', created);
    expect(answer.status).toBe(409);
    expect(answer.body.schemas).toContain(ERROR);
  });

  it('Required Test: Username Case Sensitivity Check', async () => {
    const answer = await scim(app, 'GET', filtered('/Users', `userName eq "${created.userName.toUpperCase()}"`));
    expect(answer.status).toBe(200);
    // userName is caseExact false (RFC 7643 §4.1.1): the upper-cased name finds the same user.
    expect(answer.body.Resources.map((user: { id: string }) => user.id)).toEqual([createdId]);
  });

  it('Optional Test: Verify Groups endpoint', async () => {
    const answer = await scim(app, 'GET', '/Groups');
    expect(answer.status).toBe(200);
    expect(answer.body.schemas).toContain(LIST);
  });
});
