import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const ADMIN_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };
const LONE = 'z\ud800x';

/**
 * Issue 31 deliver 2: one rule for every string that enters through a JSON body, a path or a query
 * (src/directory/text-rules.ts): a lone surrogate or a NUL is a 400 naming where it is, on every route and
 * both stores alike, before anything is written.
 */
describeEachStore('one text rule on every path', (store) => {
  let app: FastifyInstance;

  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  const written = async () => ({
    directory: JSON.stringify(await exportSnapshot(store().db)),
    channels: (await store().db.selectFrom('notification_channels').select('id').execute()).length,
  });

  it('a lone surrogate or a NUL anywhere in a body is a 400 naming the field, and nothing is written', async () => {
    const before = await written();
    const cases: Array<[string, string, unknown, RegExp]> = [
      ['PUT', '/api/teams/t-lone', { name: LONE }, /\$\.name is not well-formed Unicode/],
      ['PUT', '/api/users/u-lone', { name: 'n', teamId: 'acme', watermark: ['ok', `a\u0000b`] }, /\$\.watermark\[1\] contains a NUL character/],
      ['PUT', '/api/notification-channels/c-lone', { kind: 'webhook', name: LONE, target: 'https://example.com/hook' }, /\$\.name is not well-formed Unicode/],
      [
        'PUT',
        '/api/notification-channels/c-key',
        { kind: 'webhook', name: 'n', target: 'https://example.com/hook', [`k${'\ud800'}`]: 1 },
        /\$ has a field name that is not well-formed Unicode/,
      ],
      ['POST', '/api/tokens', { userId: LONE }, /\$\.userId is not well-formed Unicode/],
    ];
    for (const [method, url, body, message] of cases) {
      const response = await app.inject({ method: method as 'PUT' | 'POST', url, headers: admin, payload: JSON.stringify(body) });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toEqual({ error: { code: 'invalid_json', message: expect.stringMatching(message) } });
    }
    const search = await app.inject({
      method: 'POST',
      url: '/search',
      headers: { ...asUser('zhang'), 'content-type': 'application/json' },
      payload: JSON.stringify({ keyword: LONE, type: 'team_member' }),
    });
    expect(search.json()).toEqual({ error: { code: 'invalid_json', message: expect.stringMatching(/\$\.keyword is not well-formed Unicode/) } });
    expect(await written()).toEqual(before);
  });

  it('the same rule on path and query values', async () => {
    const query = await app.inject({ method: 'GET', url: '/api/events?fileId=a%00b', headers: admin });
    expect(query.json()).toEqual({ error: { code: 'invalid_request', message: 'query parameter "fileId" contains a NUL character (U+0000)' } });
    const path = await app.inject({ method: 'GET', url: '/api/users/a%00b', headers: admin });
    expect(path.statusCode).toBe(400);
    expect(path.json()).toMatchObject({ error: { code: 'invalid_request', message: expect.stringMatching(/^path parameter "userId" contains a NUL/) } });
    // A lone surrogate cannot be spelled in a URL: its UTF-8 bytes are not UTF-8.
    expect((await app.inject({ method: 'GET', url: '/api/users/%ED%A0%80', headers: admin })).json()).toMatchObject({ error: { code: 'invalid_url' } });
  });

  it('a well-formed pair (an emoji) is text like any other', async () => {
    const response = await app.inject({ method: 'PUT', url: '/api/teams/t-emoji', headers: admin, payload: JSON.stringify({ name: 'team 😀' }) });
    expect(response.statusCode).toBe(201);
    expect((await app.inject({ method: 'GET', url: '/api/teams/t-emoji', headers: admin })).json()).toMatchObject({ name: 'team 😀' });
  });
});
