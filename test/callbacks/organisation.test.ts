import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { asUser, buildTestApp } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

const ACME_MEMBERS = ['zhang', 'lilei', 'hanmeimei', 'wang', 'alice', 'bob', 'carol'];

describeEachStore('team and department callbacks', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedDirectory(store().db);
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
  });

  const get = async (url: string, userId = 'zhang') => {
    const response = await app.inject({ method: 'GET', url, headers: asUser(userId) });
    return { status: response.statusCode, body: response.json() };
  };
  const ids = (users: Array<{ id: string }>) => users.map((user) => user.id);

  it('GET /teams/{teamId}/members lists every member in name order, as User', async () => {
    const { status, body } = await get('/teams/acme/members');
    expect(status).toBe(200);
    expect([...ids(body)].sort()).toEqual([...ACME_MEMBERS].sort());
    expect(Object.keys(body[0]).sort()).toEqual(['avatar', 'email', 'id', 'name']);
    expect(body.map((user: { name: string }) => user.name)).toContain('Alice Smith');
  });

  it('team members page from 1 (page 0 is the first page); pages are slices of the full list', async () => {
    const all = ids((await get('/teams/acme/members?pagination=false')).body);
    expect(all).toHaveLength(7);
    expect(ids((await get('/teams/acme/members?pagination=true&page=1&pageSize=3')).body)).toEqual(all.slice(0, 3));
    expect(ids((await get('/teams/acme/members?pagination=true&page=0&pageSize=3')).body)).toEqual(all.slice(0, 3));
    expect(ids((await get('/teams/acme/members?pagination=true&page=3&pageSize=3')).body)).toEqual(all.slice(6));
    expect((await get('/teams/acme/members?pagination=true&page=9&pageSize=3')).body).toEqual([]);
    expect(ids((await get('/teams/acme/members?page=2&pageSize=2')).body)).toEqual(all.slice(2, 4));
    // Default page size 10; a page size above the cap (100) is served as the cap.
    expect(ids((await get('/teams/acme/members?pagination=true')).body)).toEqual(all);
    expect(ids((await get('/teams/acme/members?pagination=true&pageSize=100000')).body)).toEqual(all);
  });

  it('bad paging is a 400 JSON error', async () => {
    for (const query of ['page=-1', 'page=abc', 'pageSize=0', 'pageSize=-5', 'pageSize=x', 'page=1.5', 'pagination=maybe']) {
      const { status, body } = await get(`/teams/acme/members?${query}`);
      expect(status, query).toBe(400);
      expect(body.error.code).toBe('invalid_request');
    }
    for (const query of ['page=-1', 'pageSize=abc']) {
      expect((await get(`/departments/fe/members?${query}`)).status, query).toBe(400);
    }
  });

  it('another team, an unknown team, or no team at all is 404', async () => {
    expect((await get('/teams/other/members')).status).toBe(404);
    expect((await get('/teams/nope/members')).status).toBe(404);
    expect((await get('/teams/acme/members', 'outsider')).status).toBe(404);
    expect(ids((await get('/teams/other/members', 'olga')).body)).toEqual(['olga']);
  });

  it('GET /departments/{id} counts distinct members of the whole subtree', async () => {
    expect(await get('/departments/rd')).toEqual({ status: 200, body: { id: 'rd', name: '研发部', allMemberCount: 4 } });
    expect((await get('/departments/fe')).body).toEqual({ id: 'fe', name: '前端组', allMemberCount: 3 });
    expect((await get('/departments/web')).body).toEqual({ id: 'web', name: 'Web 小组', allMemberCount: 1 });
  });

  it('TEAM_{teamId} is the root: the team, its first-level departments, all its members', async () => {
    expect((await get('/departments/TEAM_acme')).body).toEqual({ id: 'TEAM_acme', name: 'Acme 公司', allMemberCount: 7 });
    expect((await get('/departments/TEAM_acme/children')).body).toEqual([
      { id: 'rd', name: '研发部', allMemberCount: 4 },
      { id: 'sales', name: '销售部', allMemberCount: 2 },
    ]);
    const root = await get('/departments/TEAM_acme/members?page=1&pageSize=5');
    expect(root.body.total).toBe(7);
    expect(root.body.members).toHaveLength(5);
    const rest = await get('/departments/TEAM_acme/members?page=2&pageSize=5');
    expect([...ids(root.body.members), ...ids(rest.body.members)].sort()).toEqual([...ACME_MEMBERS].sort());
  });

  it('children are the direct sub-departments with their counts; a leaf has none', async () => {
    expect((await get('/departments/rd/children')).body).toEqual([
      { id: 'fe', name: '前端组', allMemberCount: 3 },
      { id: 'be', name: '后端组', allMemberCount: 2 },
    ]);
    expect(await get('/departments/web/children')).toEqual({ status: 200, body: [] });
  });

  it('members are the direct members with their total, paged from 1', async () => {
    const fe = await get('/departments/fe/members');
    expect(fe.status).toBe(200);
    expect(fe.body.total).toBe(2);
    expect([...ids(fe.body.members)].sort()).toEqual(['hanmeimei', 'lilei']);
    expect(await get('/departments/rd/members')).toEqual({ status: 200, body: { total: 0, members: [] } });
    const first = await get('/departments/fe/members?page=0&pageSize=1');
    const second = await get('/departments/fe/members?page=2&pageSize=1');
    expect(first.body.total).toBe(2);
    expect([...ids(first.body.members), ...ids(second.body.members)]).toEqual(ids(fe.body.members));
  });

  it('departments of another team and unknown ids are 404, for every department route', async () => {
    for (const id of ['ops', 'TEAM_other', 'nope', 'TEAM_nope', 'TEAM_']) {
      for (const suffix of ['', '/children', '/members']) {
        const { status, body } = await get(`/departments/${id}${suffix}`);
        expect(status, `${id}${suffix}`).toBe(404);
        expect(body.error.code).toBe('department_not_found');
      }
    }
    expect((await get('/departments/TEAM_acme', 'outsider')).status).toBe(404);
    expect((await get('/departments/ops', 'olga')).body).toEqual({ id: 'ops', name: '运维部', allMemberCount: 1 });
  });
});
