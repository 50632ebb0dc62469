import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemoIfEmpty } from '../../src/composition/demo-data.js';
import { nameKeys } from '../../src/directory/search-keys.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { matchTier } from '../../src/directory/search-ranking.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';

const KEY = 'console-admin-key-0123456789';
const admin = { authorization: `Bearer ${KEY}` };

describeEachStore('console directory search', (store) => {
  let app: FastifyInstance;
  const search = async (kind: string, keyword: string, limit = 50) => {
    const response = await app.inject({ method: 'GET', url: `/api/directory/search/${kind}?keyword=${encodeURIComponent(keyword)}&limit=${limit}`, headers: admin });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { count: number; truncated: boolean; items: Array<Record<string, unknown> & { id: string; name: string }> };
  };

  beforeAll(async () => {
    await seedDemoIfEmpty(store());
    app = await buildTestApp(store(), { adminApiKey: KEY });
    // A name whose lower case is not ASCII, to take the unfiltered path.
    const put = await app.inject({ method: 'PUT', url: '/api/users/emile', headers: admin, payload: { name: 'ÉMILE Zola', teamId: 'galaxy', email: 'ez@example.com' } });
    expect(put.statusCode).toBeLessThan(300);
  });
  afterAll(async () => {
    await app.close();
  });

  it('finds 张三 by the initials zs first, and by full pinyin', async () => {
    const initials = await search('users', 'zs');
    expect(initials.items[0]).toMatchObject({ id: 'zhangsan', name: '张三', active: true, departments: [{ id: 'rd', name: '研发中心' }] });
    expect((await search('users', 'zhangsan')).items.map((user) => user.id)).toEqual(['zhangsan']);
    expect((await search('users', '李')).items.map((user) => user.id).sort()).toEqual(['grace', 'lisi']);
  });

  it('matches exactly the users the @-search rules match, for every keyword tried, on both paths', async () => {
    const users = await store().db.selectFrom('users').select(['id', 'name', 'email']).execute();
    for (const raw of ['zs', 'li', 'w', 'ALICE', 'smith', 'zhao', 'wang', '王', 'émile', 'é', 'mile', 'example', '%', '_', 'a_b', 'x']) {
      const keyword = normaliseKeyword(raw);
      const expected = users.filter((user) => matchTier(keyword, { name: user.name, email: user.email, ...nameKeys(user.name) }) !== null).map((user) => user.id);
      const found = await search('users', raw, 200);
      expect(found.items.map((user) => user.id).sort(), raw).toEqual(expected.sort());
      expect(found.count).toBe(expected.length);
    }
  });

  it('searches departments, teams and files by pinyin, and shows each file with its grants', async () => {
    expect((await search('departments', 'qdz')).items.map((d) => d.id)).toEqual(['fe']);
    expect((await search('departments', 'yfzx')).items[0]).toEqual({ id: 'rd', name: '研发中心', teamId: 'galaxy', parentId: null });
    expect((await search('teams', 'xh')).items).toEqual([{ id: 'galaxy', name: '星河科技 Galaxy Tech' }]);
    const plan = (await search('files', 'jdjh')).items;
    expect(plan.map((file) => file.id)).toEqual(['plan-2024q3']);
    expect(plan[0]?.sharing).toEqual([
      { principal: 'department:rd', principalName: '研发中心', role: 'editor' },
      { principal: 'user:chenjing', principalName: '陈静', role: 'commenter' },
      { principal: 'team:galaxy', principalName: '星河科技 Galaxy Tech', role: 'viewer' },
    ]);
    expect(plan[0]?.restrictions).toEqual({ copy: true, export: true });
    const handbook = (await search('files', '员工手册')).items[0];
    expect(handbook).toMatchObject({ id: 'handbook', creatorId: 'majun', restrictions: { copy: false, export: false } });
  });

  it('lists by name with an empty keyword, up to the limit, and counts them all', async () => {
    const page = await search('users', '', 5);
    expect(page.count).toBe(25);
    expect(page.items).toHaveLength(5);
    expect(page.truncated).toBe(false);
    const names = page.items.map((user) => user.name);
    expect(names).toEqual([...names].sort());
  });

  it('summarises the directory: counts, teams and the department tree with member counts', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/directory/summary', headers: admin });
    expect(response.statusCode).toBe(200);
    const summary = response.json();
    expect(summary.counts).toEqual({ teams: 1, departments: 12, users: 25, activeUsers: 25, files: 10 });
    expect(summary.teams).toEqual([{ id: 'galaxy', name: '星河科技 Galaxy Tech', memberCount: 25 }]);
    expect(summary.departments).toContainEqual({ id: 'fe', name: '前端组', teamId: 'galaxy', parentId: 'rd', memberCount: 2 });
    expect(summary.departments).toHaveLength(12);
    expect(summary.departmentsTruncated).toBe(false);
  });

  it('refuses an unknown kind, a bad limit, and a request without the key', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/directory/search/robots', headers: admin })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/api/directory/search/users?limit=0', headers: admin })).statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/api/directory/search/users?keyword=zs' })).statusCode).toBe(401);
  });
});
