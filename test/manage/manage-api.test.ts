import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/auth/platform-signature.js';
import { verifyUserToken } from '../../src/auth/user-token.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { StandInPlatform } from '../platform/stand-in-platform.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };

describe('management API switch and key', () => {
  let store: OpenDatabase;
  let off: FastifyInstance;
  let on: FastifyInstance;
  beforeAll(async () => {
    store = await openDatabase('sqlite::memory:');
    off = await buildTestApp(store);
    on = await buildTestApp(store, { adminApiKey: ADMIN_API_KEY });
  });
  afterAll(async () => {
    await off.close();
    await on.close();
    await store.close();
  });

  it('is off without ADMIN_API_KEY, and says so', async () => {
    const response = await off.inject({ method: 'PUT', url: '/api/teams/t1', headers: admin, payload: { name: 'T' } });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toEqual({ code: 'admin_api_disabled', message: 'the management API is off: set ADMIN_API_KEY to turn it on' });
  });

  it('refuses a missing or wrong key with 401 before looking at the body', async () => {
    const missing = await on.inject({ method: 'PUT', url: '/api/teams/t1', payload: { name: 5 } });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('admin_key_missing');
    const wrong = await on.inject({ method: 'POST', url: '/api/tokens', headers: { authorization: 'Bearer not-the-key-0123456789' }, payload: { userId: 'x' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('admin_key_invalid');
    const userToken = await on.inject({ method: 'POST', url: '/api/tokens', headers: asUser('zhang'), payload: { userId: 'zhang' } });
    expect(userToken.statusCode).toBe(401);
  });
});

describeEachStore('management API', (store) => {
  const platform = new StandInPlatform();
  let app: FastifyInstance;
  let unconfigured: FastifyInstance;

  beforeAll(async () => {
    await platform.start();
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY, platformApiUrl: platform.url });
    unconfigured = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY });
  });
  afterAll(async () => {
    await app.close();
    await unconfigured.close();
    await platform.stop();
  });

  const api = (options: InjectOptions) => app.inject({ ...options, headers: { ...admin, ...(options.headers ?? {}) } });
  const asZhang = (url: string) => app.inject({ method: 'GET', url, headers: asUser('zhang') });

  describe('directory records', () => {
    it('creates a team (201) and renames it (200), and reads it back', async () => {
      const created = await api({ method: 'PUT', url: '/api/teams/newco', payload: { name: 'New Co' } });
      expect(created.statusCode).toBe(201);
      expect(created.json()).toEqual({ id: 'newco', name: 'New Co' });
      const renamed = await api({ method: 'PUT', url: '/api/teams/newco', payload: { id: 'newco', name: 'New Co 2' } });
      expect(renamed.statusCode).toBe(200);
      expect((await api({ method: 'GET', url: '/api/teams/newco' })).json()).toEqual({ id: 'newco', name: 'New Co 2' });
      const unchanged = await api({ method: 'PUT', url: '/api/teams/newco', payload: { name: 'New Co 2' } });
      expect(unchanged.statusCode).toBe(200);
    });

    it('creates a user in a department, visible to the callbacks', async () => {
      const response = await api({
        method: 'PUT',
        url: '/api/users/newbie',
        payload: { name: '新人', email: 'newbie@example.com', teamId: 'acme', departmentIds: ['web'] },
      });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({ id: 'newbie', name: '新人', email: 'newbie@example.com', teamId: 'acme', departmentIds: ['web'], active: true });
      const seen = await asZhang('/users/newbie');
      expect(seen.json()).toEqual({ id: 'newbie', name: '新人', avatar: '', email: 'newbie@example.com' });
      const paths = await asZhang('/users/newbie/department-paths');
      expect(paths.json()).toEqual([
        [
          { id: 'rd', name: '研发部' },
          { id: 'fe', name: '前端组' },
          { id: 'web', name: 'Web 小组' },
        ],
      ]);
    });

    it('refuses a record that breaks the snapshot rules with 400 listing every problem, writing nothing', async () => {
      const response = await api({
        method: 'PUT',
        url: '/api/users/broken',
        payload: { name: '', teamId: 'ghost-team', departmentIds: ['ghost-dept'], colour: 'red' },
      });
      expect(response.statusCode).toBe(400);
      const { error } = response.json();
      expect(error.code).toBe('invalid_record');
      const paths = error.problems.map((p: { path: string }) => p.path).sort();
      expect(paths).toEqual(expect.arrayContaining(['$.name', '$.teamId', '$.colour']));
      expect(error.message).toContain('$.name');
      expect((await asZhang('/users/broken')).statusCode).toBe(404);
    });

    it('stores only an http(s) avatar: javascript:, data: and relative ones are refused, writing nothing (issue 20, item 9)', async () => {
      for (const avatar of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:image/svg+xml,<svg onload=alert(1)>', '//evil.example/a.png', 'avatar.png']) {
        const response = await api({ method: 'PUT', url: '/api/users/painted', payload: { name: 'Painted', teamId: 'acme', avatar } });
        expect(response.statusCode, avatar).toBe(400);
        expect(response.json().error.problems).toEqual([{ path: '$.avatar', message: 'must be an http(s):// address' }]);
      }
      expect((await asZhang('/users/painted')).statusCode).toBe(404);
      const kept = await api({ method: 'PUT', url: '/api/users/painted', payload: { name: 'Painted', teamId: 'acme', avatar: 'https://avatars.example.com/p.png' } });
      expect(kept.statusCode).toBe(201);
      expect((await asZhang('/users/painted')).json()).toMatchObject({ avatar: 'https://avatars.example.com/p.png' });
    });

    it('refuses a body id that differs from the path', async () => {
      const response = await api({ method: 'PUT', url: '/api/teams/a', payload: { id: 'b', name: 'B' } });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.problems).toEqual([{ path: '$.id', message: 'must equal the id in the path (a)' }]);
    });

    it('refuses a department that would make a cycle with the stored tree', async () => {
      const response = await api({ method: 'PUT', url: '/api/departments/rd', payload: { name: '研发部', teamId: 'acme', parentId: 'web' } });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.problems.length).toBeGreaterThan(0);
      expect((await asZhang('/users/zhang/department-paths')).json()).toEqual([
        [
          { id: 'rd', name: '研发部' },
          { id: 'be', name: '后端组' },
        ],
      ]);
    });

    it('writes a file with its sharing, and grants can be set and removed one by one', async () => {
      const put = await api({
        method: 'PUT',
        url: '/api/files/memo',
        payload: {
          name: 'Memo',
          type: 'document',
          creatorId: 'zhang',
          createdAt: '2024-04-01T08:00:00Z',
          updatedAt: '2024-04-01T08:00:00Z',
          sharing: [{ principal: 'department:sales', role: 'viewer' }],
        },
      });
      expect(put.statusCode).toBe(201);
      const permissions = async (userId: string) => (await app.inject({ method: 'GET', url: '/files/memo', headers: asUser(userId) })).json().permissions;
      expect((await permissions('alice')).readable).toBe(true);
      expect((await permissions('olga')).readable).toBe(false);

      const grant = await api({ method: 'PUT', url: '/api/files/memo/grants/user:olga', payload: { role: 'editor' } });
      expect(grant.statusCode).toBe(200);
      expect(grant.json()).toEqual({ fileId: 'memo', principal: 'user:olga', role: 'editor' });
      expect((await permissions('olga')).editable).toBe(true);

      const unknown = await api({ method: 'PUT', url: '/api/files/memo/grants/user:ghost', payload: { role: 'viewer' } });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().error.problems).toEqual([{ path: '$.principal', message: 'names unknown user "ghost"' }]);
      const badForm = await api({ method: 'PUT', url: '/api/files/memo/grants/olga', payload: { role: 'viewer' } });
      expect(badForm.json().error.problems).toEqual([{ path: '$.principal', message: 'must be user:ID, department:ID or team:ID' }]);
      const badRole = await api({ method: 'PUT', url: '/api/files/memo/grants/user:olga', payload: { role: 'owner' } });
      expect(badRole.statusCode).toBe(400);
      expect(badRole.json().error.problems.map((p: { path: string }) => p.path)).toEqual(['$.role']);
      const nullBody = await api({ method: 'PUT', url: '/api/files/memo/grants/user:olga', payload: 'null', headers: { 'content-type': 'application/json' } });
      expect(nullBody.statusCode).toBe(400);
      expect(nullBody.json().error).toMatchObject({ code: 'invalid_record', problems: [{ path: '$', message: 'must be object' }] });
      expect((await permissions('olga')).editable).toBe(true);
      expect((await api({ method: 'PUT', url: '/api/files/nofile/grants/user:olga', payload: { role: 'viewer' } })).statusCode).toBe(404);

      expect((await api({ method: 'DELETE', url: '/api/files/memo/grants/user:olga' })).statusCode).toBe(204);
      expect((await permissions('olga')).readable).toBe(false);
      expect((await api({ method: 'DELETE', url: '/api/files/memo/grants/user:olga' })).statusCode).toBe(404);
    });

    it('deletes a file with its grants', async () => {
      expect((await api({ method: 'DELETE', url: '/api/files/memo' })).statusCode).toBe(204);
      expect((await asZhang('/files/memo')).statusCode).toBe(404);
      expect((await api({ method: 'DELETE', url: '/api/files/memo' })).statusCode).toBe(404);
    });

    it('refuses deletes that would leave rows pointing at nothing (409), and deletes leaves', async () => {
      const creator = await api({ method: 'DELETE', url: '/api/users/zhang' });
      expect(creator.statusCode).toBe(409);
      expect(creator.json().error.message).toMatch(/^user zhang created \d+ files/);
      const team = await api({ method: 'DELETE', url: '/api/teams/acme' });
      expect(team.statusCode).toBe(409);
      const parent = await api({ method: 'DELETE', url: '/api/departments/fe' });
      expect(parent.statusCode).toBe(409);
      expect(parent.json().error).toEqual({
        code: 'in_use',
        message: 'department fe still has 1 sub-departments',
        problems: [{ path: '$', message: 'department fe still has 1 sub-departments' }],
      });

      expect((await api({ method: 'DELETE', url: '/api/departments/web' })).statusCode).toBe(204);
      expect((await asZhang('/users/newbie/department-paths')).json()).toEqual([]);
      expect((await api({ method: 'DELETE', url: '/api/users/newbie' })).statusCode).toBe(204);
      expect((await asZhang('/users/newbie')).statusCode).toBe(404);
      expect((await api({ method: 'DELETE', url: '/api/teams/newco' })).statusCode).toBe(204);
      expect((await api({ method: 'DELETE', url: '/api/teams/newco' })).statusCode).toBe(404);
    });
  });

  describe('POST /api/tokens', () => {
    it('issues a token that opens the user-context callbacks', async () => {
      const response = await api({ method: 'POST', url: '/api/tokens', payload: { userId: 'lilei', ttl: '2h' } });
      expect(response.statusCode).toBe(201);
      const body = response.json();
      expect(body.userId).toBe('lilei');
      expect(body.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
      expect(Math.abs(Date.parse(body.expiresAt) - (Date.now() + 7200_000))).toBeLessThan(5000);
      const me = await app.inject({ method: 'GET', url: '/users/current/info', headers: { 'x-platform-token': body.token } });
      expect(me.json().id).toBe('lilei');
    });

    it('refuses an unknown user (404) and a bad ttl (400)', async () => {
      expect((await api({ method: 'POST', url: '/api/tokens', payload: { userId: 'ghost' } })).statusCode).toBe(404);
      const bad = await api({ method: 'POST', url: '/api/tokens', payload: { userId: 'lilei', ttl: 'forever' } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('invalid_ttl');
      expect((await api({ method: 'POST', url: '/api/tokens', payload: { userId: 5 } })).statusCode).toBe(400);
    });
  });

  describe('documents', () => {
    it('creates a document through the platform; its creator gets manageable', async () => {
      const response = await api({ method: 'POST', url: '/api/documents', payload: { userId: 'alice', type: 'documentPro', name: '周报', fileId: 'weekly' } });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toMatchObject({ id: 'weekly', name: '周报', type: 'documentPro', creatorId: 'alice', teamGuid: 'acme', views: 1 });
      expect(response.json().permissions.manageable).toBe(true);
      expect(platform.calls.at(-1)!.body).toEqual({ type: 'documentPro', fileId: 'weekly' });
      const asAlice = await app.inject({ method: 'GET', url: '/files/weekly', headers: asUser('alice') });
      expect(asAlice.json().permissions.manageable).toBe(true);
    });

    it('maps the platform refusal and bad input to clear errors', async () => {
      platform.answerNext({ kind: 'error', status: 409, body: { code: 70012, message: 'exists' } });
      const exists = await api({ method: 'POST', url: '/api/documents', payload: { userId: 'alice', type: 'document', name: 'x', fileId: 'dup' } });
      expect(exists.statusCode).toBe(409);
      expect(exists.json().error).toEqual({
        code: 'platform_file_exists',
        message: 'the platform refused POST /sdk/v2/api/files: HTTP 409, platform error 70012 (file id already exists): exists; body {"code":70012,"message":"exists"}',
      });
      expect((await api({ method: 'POST', url: '/api/documents', payload: { userId: 'alice', type: 'document', name: 'x', fileId: 'weekly' } })).statusCode).toBe(409);
      const badType = await api({ method: 'POST', url: '/api/documents', payload: { userId: 'alice', type: 'file', name: 'x' } });
      expect(badType.statusCode).toBe(400);
      expect(badType.json().error.code).toBe('invalid_document');
      expect((await api({ method: 'POST', url: '/api/documents', payload: { userId: 'ghost', type: 'document', name: 'x' } })).statusCode).toBe(404);
      const off = await unconfigured.inject({ method: 'POST', url: '/api/documents', headers: admin, payload: { userId: 'alice', type: 'document', name: 'x' } });
      expect(off.statusCode).toBe(503);
      expect(off.json().error.code).toBe('platform_not_configured');
    });

    it('answers the editor config of a reader, whose signature the signed callbacks refuse', async () => {
      const config = makeTestConfig();
      const response = await api({ method: 'GET', url: '/api/documents/plan/editor-config?userId=lilei' });
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body).toMatchObject({ endpoint: `${platform.url}/sdk/v2`, fileId: 'plan', debug: false });
      expect(await verifyUserToken(body.token, config.tokenSecret)).toMatchObject({ ok: true, userId: 'lilei' });
      const signature = await verifySignature(body.signature, config, { fileId: 'plan', userId: 'lilei' });
      expect(signature).toMatchObject({ ok: true, claims: { scope: 'editor', fileId: 'plan', userId: 'lilei' } });
      const reused = await app.inject({ method: 'GET', url: '/admin/files/plan', headers: { 'x-platform-signature': body.signature } });
      expect(reused.statusCode).toBe(401);
      expect(reused.json().error.code).toBe('signature_wrong_scope');
    });

    it('refuses the editor config of a user who may not read the file (403) and unknown ids (404)', async () => {
      expect((await api({ method: 'GET', url: '/api/documents/secret/editor-config?userId=alice' })).statusCode).toBe(403);
      expect((await api({ method: 'GET', url: '/api/documents/nope/editor-config?userId=alice' })).statusCode).toBe(404);
      expect((await api({ method: 'GET', url: '/api/documents/plan/editor-config?userId=ghost' })).statusCode).toBe(404);
      expect((await api({ method: 'GET', url: '/api/documents/plan/editor-config' })).statusCode).toBe(400);
    });
  });
});

/** What the first store answered to each NUL request; the next store must answer the same. */
const nulAnswers = new Map<string, unknown>();

describeEachStore('management API: the directory through the one validated path', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY });
  });
  afterAll(async () => {
    await app.close();
  });
  const api = (options: InjectOptions) => app.inject({ ...options, headers: { ...admin, ...(options.headers ?? {}) } });
  const as = (userId: string, url: string) => app.inject({ method: 'GET', url, headers: asUser(userId) });
  const memo = (extra: Record<string, unknown> = {}) => ({
    name: 'Memo',
    type: 'document',
    creatorId: 'zhang',
    teamId: 'acme',
    createdAt: '2024-04-01T08:00:00Z',
    updatedAt: '2024-04-02T08:00:00Z',
    ...extra,
  });

  it('refuses to move a department to another team (409): the other team sees none of its members', async () => {
    const moved = await api({ method: 'PUT', url: '/api/departments/fe', payload: { name: '前端组', teamId: 'other', parentId: null } });
    expect(moved.statusCode).toBe(409);
    const { error } = moved.json();
    expect(error.code).toBe('cross_team_move');
    expect(error.problems).toEqual([{ path: '$.teamId', message: expect.stringContaining('it has 2 members, 1 sub-department, 1 grant in team "acme"') }]);
    expect((await as('olga', '/departments/fe/members')).statusCode).toBe(404);
    expect((await as('olga', '/teams/other/members')).json().map((user: { id: string }) => user.id)).toEqual(['olga']);
    expect((await api({ method: 'GET', url: '/api/departments/fe' })).json()).toEqual({ id: 'fe', name: '前端组', teamId: 'acme', parentId: 'rd' });
  });

  it('refuses records that break a rule against what is stored (400, every problem), writing nothing', async () => {
    const cases: Array<[string, InjectOptions['payload'], Array<{ path: string; message: unknown }>]> = [
      [
        '/api/users/olga',
        { name: 'Olga', teamId: 'other', departmentIds: ['fe'] },
        [{ path: '$.departmentIds[0]', message: 'names department "fe" of team "acme", not the user\'s team "other"' }],
      ],
      ['/api/files/memo', memo({ sharing: [{ principal: 'user:ghost', role: 'viewer' }] }), [{ path: '$.sharing[0].principal', message: 'names unknown user "ghost"' }]],
      ['/api/files/memo', memo({ type: 'file' }), [{ path: '$.downloadUrl', message: expect.stringContaining('is required for a file of type "file"') }]],
      ['/api/files/memo', memo({ updatedAt: '2024-03-01T08:00:00Z' }), [{ path: '$.updatedAt', message: 'is earlier than createdAt (2024-04-01T08:00:00Z)' }]],
      ['/api/files/memo', memo({ views: 2 ** 31 }), [{ path: '$.views', message: 'must be at most 2147483647' }]],
    ];
    for (const [url, payload, problems] of cases) {
      const response = await api({ method: 'PUT', url, payload });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'invalid_record', problems });
    }
    expect((await api({ method: 'GET', url: '/api/files/memo' })).statusCode).toBe(404);
    expect((await api({ method: 'GET', url: '/api/users/olga' })).json().departmentIds).toEqual(['ops']);
  });

  it('answers control characters in any id with the same 400 on every store', async () => {
    const controls = 'must be well-formed Unicode without control characters (U+0000 to U+001F, U+007F)';
    const put = await api({ method: 'PUT', url: '/api/users/a%01b', payload: { name: 'x' } });
    expect(put.statusCode).toBe(400);
    expect(put.json()).toEqual({ error: { code: 'invalid_record', message: `$.id ${controls}`, problems: [{ path: '$.id', message: controls }] } });
    for (const [method, url, param] of [
      ['GET', '/api/users/a%1Fb', 'userId'],
      ['DELETE', '/api/teams/a%0Ab', 'teamId'],
      ['GET', '/api/files/a%01b', 'fileId'],
      ['DELETE', '/api/files/a%7Fb/grants/user:olga', 'fileId'],
    ] as const) {
      const response = await api({ method, url });
      expect(response.statusCode, url).toBe(400);
      expect(response.json(), url).toEqual({ error: { code: 'invalid_request', message: `params.${param} ${controls}` } });
    }
    const grant = await api({ method: 'PUT', url: '/api/files/plan/grants/user:a%02b', payload: { role: 'viewer' } });
    expect(grant.statusCode).toBe(400);
    expect(grant.json().error.problems).toEqual([{ path: '$.principal', message: controls }]);
    const nulCursor = Buffer.from(JSON.stringify({ after: 'a\u0000' })).toString('base64url');
    expect((await api({ method: 'GET', url: `/api/users?cursor=${nulCursor}` })).json().error.code).toBe('invalid_cursor');

    // NUL, which PostgreSQL's text cannot hold: a 400 in the error shape, the same on every store.
    for (const [method, url, payload] of [
      ['PUT', '/api/users/a%00b', { name: 'x' }],
      ['GET', '/api/users/a%00b', undefined],
      ['DELETE', '/api/departments/a%00b', undefined],
      ['PUT', '/api/files/plan/grants/user:a%00b', { role: 'viewer' }],
    ] as const) {
      const response = await api({ method, url, ...(payload ? { payload } : {}) });
      expect(response.statusCode, url).toBe(400);
      const body = response.json() as { error: { code: string; message: string } };
      expect(typeof body.error.code, url).toBe('string');
      expect(typeof body.error.message, url).toBe('string');
      const key = `${method} ${url}`;
      const first = nulAnswers.get(key);
      if (first === undefined) nulAnswers.set(key, body);
      else expect(body, `${key} answers the same on every store`).toEqual(first);
    }
  });

  it('reads back exactly what it wrote: a file with its sharing and restrictions, a user with departmentIds and active', async () => {
    const file = memo({
      views: 7,
      sharing: [
        { principal: 'department:sales', role: 'viewer' },
        { principal: 'user:olga', role: 'editor' },
      ],
      restrictions: { copy: false, export: true },
    });
    expect((await api({ method: 'PUT', url: '/api/files/memo', payload: file })).statusCode).toBe(201);
    expect((await api({ method: 'GET', url: '/api/files/memo' })).json()).toEqual({ id: 'memo', ...file });
    expect((await api({ method: 'GET', url: '/api/files/contract' })).json()).toEqual({
      id: 'contract',
      name: '合同.docx',
      type: 'file',
      creatorId: 'zhang',
      teamId: 'acme',
      createdAt: '2024-03-01T08:00:00Z',
      updatedAt: '2024-03-02T08:00:00Z',
      sharing: [{ principal: 'user:alice', role: 'viewer' }],
      restrictions: { copy: true, export: true },
      ext: 'docx',
      downloadUrl: 'https://files.example.com/contract',
      fullUrl: 'https://oa.example.com/contract',
    });
    const user = { name: '韩梅梅', email: 'han@example.com', teamId: 'acme', departmentIds: ['be', 'fe'], watermark: ['机密'], active: false };
    expect((await api({ method: 'PUT', url: '/api/users/hanmeimei', payload: user })).statusCode).toBe(200);
    expect((await api({ method: 'GET', url: '/api/users/hanmeimei' })).json()).toEqual({ id: 'hanmeimei', ...user });
    expect((await as('hanmeimei', '/users/current/info')).json().error.code).toBe('token_user_inactive');
    expect((await api({ method: 'PUT', url: '/api/users/hanmeimei', payload: { ...user, active: true } })).statusCode).toBe(200);
    expect((await as('hanmeimei', '/users/current/info')).statusCode).toBe(200);
    expect((await api({ method: 'GET', url: '/api/departments/web' })).json()).toEqual({ id: 'web', name: 'Web 小组', teamId: 'acme', parentId: 'fe' });
    expect((await api({ method: 'GET', url: '/api/teams/nope' })).json().error).toEqual({ code: 'not_found', message: 'no team nope' });
  });

  it('lists each section by id a page at a time', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response = await api({ method: 'GET', url: `/api/users?limit=4${cursor ? `&cursor=${cursor}` : ''}` });
      expect(response.statusCode).toBe(200);
      const page = response.json() as { items: Array<{ id: string; departmentIds: string[]; active: boolean }>; nextCursor: string | null };
      expect(page.items.length).toBeLessThanOrEqual(4);
      ids.push(...page.items.map((user) => user.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(ids).toEqual(['alice', 'bob', 'carol', 'hanmeimei', 'lilei', 'olga', 'outsider', 'wang', 'zhang']);
    expect(pages).toBe(3);
    const teams = (await api({ method: 'GET', url: '/api/teams' })).json();
    expect(teams).toEqual({
      items: [
        { id: 'acme', name: 'Acme 公司' },
        { id: 'other', name: 'Other Co' },
      ],
      nextCursor: null,
    });
    const files = (await api({ method: 'GET', url: '/api/files?limit=2' })).json();
    expect(files.items.map((file: { id: string }) => file.id)).toEqual(['contract', 'locked']);
    expect((await api({ method: 'GET', url: '/api/departments?limit=0' })).statusCode).toBe(400);
    expect((await api({ method: 'GET', url: '/api/departments?limit=501' })).statusCode).toBe(400);
    const bad = await api({ method: 'GET', url: '/api/departments?cursor=not-ours' });
    expect(bad.json().error).toEqual({ code: 'invalid_cursor', message: 'cursor is not one this API gave out' });
  });

  it('runs the listeners in the write transaction: one that throws rolls the write back (500)', async () => {
    const failing = await buildTestApp(
      store(),
      { adminApiKey: ADMIN_API_KEY },
      {
        directoryListeners: [
          async () => {
            throw new Error('audit table unavailable');
          },
        ],
      },
    );
    try {
      const response = await failing.inject({ method: 'PUT', url: '/api/teams/newco', headers: admin, payload: { name: 'New Co' } });
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: { code: 'internal', message: 'internal server error' } });
      expect((await api({ method: 'GET', url: '/api/teams/newco' })).statusCode).toBe(404);
    } finally {
      await failing.close();
    }
  });
});
