import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { filtered, GROUP_SCHEMA, patchOp, scim, SCIM_TOKEN, scimConfig, USER_SCHEMA, type ScimAnswer } from './scim-client.js';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const ADMIN_KEY = 'admin-key-0123456789abcdef';
/** What the engine says when code breaks: never in an answer. */
const RUNTIME_TEXT = /is not a function|Cannot read|Cannot convert|TypeError|undefined|\.split|tokens\[/;

function expectScimError(answer: ScimAnswer, status: number, scimType?: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.contentType).toMatch(/^application\/scim\+json/);
  expect(answer.body).toMatchObject({ schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}) });
  expect(answer.body.detail).not.toMatch(RUNTIME_TEXT);
}

describeEachStore('SCIM refuses hostile attribute paths, filters and bodies before anything sees them', (store) => {
  let app: FastifyInstance;
  let aliceId: string;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { ...scimConfig('scimco'), adminApiKey: ADMIN_KEY });
    const alice = await scim(app, 'POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: 'alice@scim.example',
      displayName: 'Alice',
      emails: [{ value: 'alice@scim.example', primary: true }],
    });
    expect(alice.status, JSON.stringify(alice.body)).toBe(201);
    aliceId = alice.body.id;
    // No e-mail, no name: a missing value must never break a filter for everyone.
    expect((await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'bare' })).status).toBe(201);
    expect((await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Empty' })).status).toBe(201);
    expect((await scim(app, 'POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Full', members: [{ value: aliceId }] })).status).toBe(201);
  });
  afterAll(async () => {
    await app.close();
  });

  const otherTeamsFile = async () => app.inject({ method: 'GET', url: '/api/files/contract', headers: { authorization: `Bearer ${ADMIN_KEY}` } });

  it('refuses __proto__, constructor and prototype in every attribute path; nothing is polluted and the process keeps answering', async () => {
    const before = await otherTeamsFile();
    expect(before.statusCode).toBe(200);
    const refusedQueries: Array<[string, string]> = [
      ['/Users?attributes=__proto__.downloadUrl', 'invalidFilter'],
      ['/Users?attributes=userName,constructor', 'invalidFilter'],
      ['/Users?excludedAttributes=prototype', 'invalidFilter'],
      [filtered('/Users', '__proto__.hasOwnProperty pr'), 'invalidFilter'],
      [filtered('/Users', '__proto__.polluted eq "x"'), 'invalidFilter'],
      [filtered('/Users', 'emails[constructor pr]'), 'invalidFilter'],
      [filtered('/Users', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:__proto__ pr'), 'invalidFilter'],
      [filtered('/Groups', 'displayName eq "x" or prototype.x pr'), 'invalidFilter'],
      [`/Users/${encodeURIComponent(aliceId)}?attributes=__proto__`, 'invalidFilter'],
    ];
    for (const [url, scimType] of refusedQueries) expectScimError(await scim(app, 'GET', url), 400, scimType);

    for (const path of ['__proto__.polluted', 'emails[__proto__ pr].value', 'emails[type eq "work"].constructor', 'name.prototype']) {
      expectScimError(await scim(app, 'PATCH', `/Users/${encodeURIComponent(aliceId)}`, patchOp({ op: 'add', path, value: 'x' })), 400, 'invalidPath');
    }
    // Keys in bodies: JSON.parse makes "__proto__" an own key, which a library's `target[key] = …` would follow.
    const raw = async (method: 'POST' | 'PATCH', url: string, payload: string) =>
      app.inject({ method, url: `/scim/v2${url}`, headers: { authorization: `Bearer ${SCIM_TOKEN}`, 'content-type': 'application/scim+json' }, payload });
    const bodies: Array<['POST' | 'PATCH', string, string]> = [
      [
        'PATCH',
        `/Users/${encodeURIComponent(aliceId)}`,
        '{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"add","value":{"__proto__":{"polluted":"yes"}}}]}',
      ],
      ['POST', '/Users', `{"schemas":["${USER_SCHEMA}"],"userName":"mallory","name":{"constructor":{"prototype":{"polluted":"yes"}}}}`],
      ['POST', '/Groups', `{"schemas":["${GROUP_SCHEMA}"],"displayName":"G","__proto__":{"polluted":"yes"}}`],
    ];
    for (const [method, url, payload] of bodies) {
      const answer = await raw(method, url, payload);
      expect(answer.statusCode, answer.body).toBe(400);
      expect(answer.json()).toMatchObject({ schemas: [ERROR], scimType: 'invalidPath' });
    }

    expect(({} as Record<string, unknown>).downloadUrl).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(typeof Object.prototype.hasOwnProperty).toBe('function');
    const after = await otherTeamsFile();
    expect(after.json()).toEqual(before.json());
    expect(after.json()).not.toHaveProperty('downloadUrl', 'pr');
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await scim(app, 'GET', '/Users?count=0')).body.totalResults).toBe(2);
  });

  it('answers malformed filters, attribute lists and bodies with 400 in its own words', async () => {
    const filters = [
      '5',
      'NaN',
      'userName',
      'userName eq',
      'userName xx "a"',
      '(userName eq "a"',
      'userName eq "a" and',
      'not userName eq "a"',
      'userName co 5',
      'userName eq "unterminated',
      'emails[type eq "work"',
      'userName eq "a" userName',
      '"a" eq userName',
      'a.b.c eq "x"',
    ];
    for (const filter of filters) {
      const answer = await scim(app, 'GET', filtered('/Users', filter));
      expectScimError(answer, 400, 'invalidFilter');
      expect(answer.body.detail, filter).toMatch(/^filter/);
    }
    for (const query of ['attributes=[1,2]', 'attributes=', 'excludedAttributes=userName,,name', 'attributes=user%20Name'])
      expectScimError(await scim(app, 'GET', `/Users?${query}`), 400, 'invalidFilter');
    for (const body of [null, [], 5, 'text']) {
      expectScimError(await scim(app, 'POST', '/Users', body), 400, 'invalidSyntax');
      expectScimError(await scim(app, 'PATCH', `/Users/${encodeURIComponent(aliceId)}`, body), 400, 'invalidSyntax');
    }
    expectScimError(await scim(app, 'PATCH', `/Users/${encodeURIComponent(aliceId)}`, patchOp(null as unknown as object)), 400, 'invalidSyntax');
    expectScimError(await scim(app, 'PATCH', `/Users/${encodeURIComponent(aliceId)}`, patchOp({ op: 'replace', path: 5, value: 'x' })), 400, 'invalidPath');
    expect((await scim(app, 'GET', '/Users?count=0')).body.totalResults).toBe(2);
  });

  it('reads filters by the RFC: precedence, not, value paths, case-exact ids; a missing value only leaves its resource out', async () => {
    const userNames = async (filter: string) => {
      const answer = await scim(app, 'GET', filtered('/Users', filter));
      expect(answer.status, `${filter}: ${JSON.stringify(answer.body)}`).toBe(200);
      return (answer.body.Resources as Array<{ userName: string }>).map((user) => user.userName).sort();
    };
    expect(await userNames('emails.value co "a"')).toEqual(['alice@scim.example']);
    expect(await userNames('emails co "ALICE"')).toEqual(['alice@scim.example']);
    expect(await userNames('emails pr')).toEqual(['alice@scim.example']);
    expect(await userNames('not (emails pr)')).toEqual(['bare']);
    expect(await userNames('name.familyName eq "x"')).toEqual([]);
    expect(await userNames('userName eq "bare" or userName eq "nobody" and emails pr')).toEqual(['bare']);
    expect(await userNames('(userName eq "bare" or userName eq "alice@scim.example") and emails pr')).toEqual(['alice@scim.example']);
    expect(await userNames('emails[value ew "@SCIM.example" and primary eq true]')).toEqual(['alice@scim.example']);
    expect(await userNames('active eq "True"')).toEqual(['alice@scim.example', 'bare']);
    expect(await userNames(`id eq "${aliceId.toUpperCase()}"`)).toEqual(aliceId === aliceId.toUpperCase() ? ['alice@scim.example'] : []);
    expect(await userNames('meta.created gt "2000-01-01T00:00:00Z"')).toEqual(['alice@scim.example', 'bare']);
    expect(await userNames('urn:ietf:params:scim:schemas:core:2.0:User:userName sw "ALI"')).toEqual(['alice@scim.example']);

    const groups = async (filter: string) => {
      const answer = await scim(app, 'GET', filtered('/Groups', filter));
      expect(answer.status, `${filter}: ${JSON.stringify(answer.body)}`).toBe(200);
      return (answer.body.Resources as Array<{ displayName: string }>).map((group) => group.displayName).sort();
    };
    expect(await groups(`members.value eq "${aliceId}"`)).toEqual(['Full']);
    expect(await groups('members.value eq "nobody"')).toEqual([]);
    expect(await groups('members pr')).toEqual(['Full']);
    expect(await groups('not (members pr)')).toEqual(['Empty']);

    // A password is never returned, so no filter reads it (a filter must not become an oracle).
    const withPassword = await scim(app, 'POST', '/Users', { schemas: [USER_SCHEMA], userName: 'secretive', password: 'Secret-1234' });
    expect(withPassword.status).toBe(201);
    expect(await userNames('password pr or password eq "Secret-1234"')).toEqual([]);
    expect((await scim(app, 'DELETE', `/Users/${encodeURIComponent(withPassword.body.id)}`)).status).toBe(204);
  });
});
