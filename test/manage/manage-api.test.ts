import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/auth/platform-signature.js';
import { verifyUserToken } from '../../src/auth/user-token.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { openDatabase, type OpenDatabase } from '../../src/store/database.js';
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
    it('creates and renames a team', async () => {
      const created = await api({ method: 'PUT', url: '/api/teams/newco', payload: { name: 'New Co' } });
      expect(created.statusCode).toBe(200);
      expect(created.json()).toEqual({ id: 'newco', name: 'New Co' });
      expect((await api({ method: 'PUT', url: '/api/teams/newco', payload: { id: 'newco', name: 'New Co 2' } })).statusCode).toBe(200);
    });

    it('creates a user in a department, visible to the callbacks', async () => {
      const response = await api({
        method: 'PUT',
        url: '/api/users/newbie',
        payload: { name: '新人', email: 'newbie@example.com', teamId: 'acme', departmentIds: ['web'] },
      });
      expect(response.statusCode).toBe(200);
      const seen = await asZhang('/users/newbie');
      expect(seen.json()).toEqual({ id: 'newbie', name: '新人', avatar: '', email: 'newbie@example.com' });
      const paths = await asZhang('/users/newbie/department-paths');
      expect(paths.json()).toEqual([[{ id: 'rd', name: '研发部' }, { id: 'fe', name: '前端组' }, { id: 'web', name: 'Web 小组' }]]);
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

    it('refuses a body id that differs from the path', async () => {
      const response = await api({ method: 'PUT', url: '/api/teams/a', payload: { id: 'b', name: 'B' } });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.problems).toEqual([{ path: '$.id', message: 'must equal the id in the path (a)' }]);
    });

    it('refuses a department that would make a cycle with the stored tree', async () => {
      const response = await api({ method: 'PUT', url: '/api/departments/rd', payload: { name: '研发部', teamId: 'acme', parentId: 'web' } });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.problems.length).toBeGreaterThan(0);
      expect((await asZhang('/users/zhang/department-paths')).json()).toEqual([[{ id: 'rd', name: '研发部' }, { id: 'be', name: '后端组' }]]);
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
      expect(put.statusCode).toBe(200);
      const permissions = async (userId: string) =>
        (await app.inject({ method: 'GET', url: '/files/memo', headers: asUser(userId) })).json().permissions;
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
      expect(parent.json().error).toEqual({ code: 'in_use', message: 'department fe still has 1 sub-departments' });

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
      expect(exists.json().error).toEqual({ code: 'platform_file_exists', message: 'the platform refused the request: platform error 70012 (file id already exists): exists' });
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
      expect(verifyUserToken(body.token, config.tokenSecret)).toMatchObject({ ok: true, userId: 'lilei' });
      const signature = verifySignature(body.signature, config, { fileId: 'plan', userId: 'lilei' });
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
