import Fastify, { type FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { UserSchema } from '../../src/http/schemas.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { formatTime } from '../../src/directory/time.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const profile = (id: string, name: string) => ({ id, name, avatar: `https://avatars.example.com/${id}.png`, email: `${id}@example.com` });

describeEachStore('user callbacks', (store) => {
  let app: FastifyInstance;
  let templated: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store());
    templated = await buildTestApp(store(), { watermarkTemplate: ['{name} <{email}>', 'id:{id}', 'fixed'] });
  });
  afterAll(async () => {
    await Promise.all([app.close(), templated.close()]);
  });

  const get = async (url: string, userId: string, on: FastifyInstance = app) => {
    const response = await on.inject({ method: 'GET', url, headers: asUser(userId) });
    return { status: response.statusCode, body: response.json() };
  };
  const batch = async (payload: string, userId = 'zhang') => {
    const response = await app.inject({
      method: 'POST',
      url: '/users/batch/get',
      headers: { ...asUser(userId), 'content-type': 'application/json' },
      payload,
    });
    return { status: response.statusCode, body: response.json() };
  };

  it('GET /users/current/info gives the user with teamGuid, and no teamGuid without a team', async () => {
    expect(await get('/users/current/info', 'zhang')).toEqual({ status: 200, body: { ...profile('zhang', '张三'), teamGuid: 'acme' } });
    expect((await get('/users/current/info', 'olga')).body.teamGuid).toBe('other');
    expect(await get('/users/current/info', 'outsider')).toEqual({ status: 200, body: profile('outsider', 'Outsider') });
  });

  it('GET /users/current/team gives the team with its member count', async () => {
    expect(await get('/users/current/team', 'wang')).toEqual({ status: 200, body: { id: 'acme', name: 'Acme 公司', memberCount: 7 } });
    expect((await get('/users/current/team', 'olga')).body).toEqual({ id: 'other', name: 'Other Co', memberCount: 1 });
    const none = await get('/users/current/team', 'outsider');
    expect(none.status).toBe(404);
    expect(none.body.error.code).toBe('team_not_found');
  });

  it('GET /users/{userId} gives the profile only, across teams too; unknown is 404', async () => {
    expect(await get('/users/olga', 'zhang')).toEqual({ status: 200, body: profile('olga', 'Olga Petrova') });
    expect((await get('/users/hanmeimei', 'zhang')).body).toEqual(profile('hanmeimei', '韩梅梅')); // no watermark, no team
    const unknown = await get('/users/ghost', 'zhang');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('user_not_found');
  });

  it('POST /users/batch/get keeps the order asked, leaves unknown ids out, each user once', async () => {
    const { status, body } = await batch(JSON.stringify({ ids: ['wang', 'ghost', 'zhang', 'wang', 'olga'] }));
    expect(status).toBe(200);
    expect(body).toEqual([profile('wang', '王小明'), profile('zhang', '张三'), profile('olga', 'Olga Petrova')]);
    expect(await batch('{"ids":[]}')).toEqual({ status: 200, body: [] });
  });

  it('POST /users/batch/get answers the bytes and content type its response schema gives', async () => {
    // The route writes its JSON itself; the reference serializes through the schema it documents.
    const reference = Fastify();
    reference.post('/', { schema: { response: { 200: Type.Array(UserSchema) } } }, async (request) => request.body);
    try {
      for (const [ids, userId] of [
        [['wang', 'ghost', 'zhang', 'wang', 'olga'], 'zhang'],
        [[], 'zhang'],
        [['ghost'], 'zhang'],
      ] as const) {
        const response = await app.inject({ method: 'POST', url: '/users/batch/get', headers: { ...asUser(userId), 'content-type': 'application/json' }, payload: { ids } });
        expect(response.statusCode).toBe(200);
        const expected = await reference.inject({ method: 'POST', url: '/', payload: response.body, headers: { 'content-type': 'application/json' } });
        expect(response.body).toBe(expected.body);
        expect(response.headers['content-type']).toBe(expected.headers['content-type']);
      }
    } finally {
      await reference.close();
    }
  });

  it('POST /users/batch/get refuses bad bodies and batches over 500 ids', async () => {
    const ids = Array.from({ length: 501 }, (_, i) => `u${i}`);
    for (const payload of [JSON.stringify({ ids }), '{"ids": 5}', '{"ids": [1, 2]}', '{"ids": "zhang"}', '{}', '[]', '{"ids": [', '']) {
      const { status, body } = await batch(payload);
      expect(status, payload.slice(0, 30)).toBe(400);
      expect(typeof body.error.code).toBe('string');
    }
    expect((await batch('{"ids": [')).body.error.code).toBe('invalid_json');
    expect((await batch(JSON.stringify({ ids: ids.slice(0, 500) }))).status).toBe(200);
  });

  it('GET /users/{userId}/watermark: own lines, [] hides, else the template filled in', async () => {
    expect(await get('/users/hanmeimei/watermark', 'zhang')).toEqual({ status: 200, body: { watermarks: ['韩梅梅', '机密'] } });
    expect((await get('/users/bob/watermark', 'bob')).body).toEqual({ watermarks: [] });
    // The default template is `{name}|{date}`: the date is today's, in UTC.
    const today = formatTime(Date.now()).slice(0, 10);
    expect((await get('/users/zhang/watermark', 'zhang')).body).toEqual({ watermarks: ['张三', today] });
    expect((await get('/users/zhang/watermark', 'zhang', templated)).body).toEqual({
      watermarks: ['张三 <zhang@example.com>', 'id:zhang', 'fixed'],
    });
    expect((await get('/users/ghost/watermark', 'zhang')).status).toBe(404);
  });

  it('GET /users/{userId}/department-paths: one path per department, first level down', async () => {
    const { status, body } = await get('/users/wang/department-paths', 'zhang');
    expect(status).toBe(200);
    expect(body).toEqual([
      [
        { id: 'rd', name: '研发部' },
        { id: 'fe', name: '前端组' },
        { id: 'web', name: 'Web 小组' },
      ],
    ]);
    expect((await get('/users/lilei/department-paths', 'lilei')).body).toHaveLength(2);
    expect((await get('/users/carol/department-paths', 'zhang')).body).toEqual([]);
    expect((await get('/users/outsider/department-paths', 'outsider')).body).toEqual([]);
  });

  it('department paths of another team and of unknown users are 404', async () => {
    expect((await get('/users/olga/department-paths', 'zhang')).status).toBe(404);
    expect((await get('/users/zhang/department-paths', 'olga')).status).toBe(404);
    expect((await get('/users/ghost/department-paths', 'zhang')).status).toBe(404);
  });
});
