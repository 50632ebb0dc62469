import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { ALL_KINDS, ids, search } from './search-http.js';
import { addActivity, seedSearchCompany } from './search-fixture.js';

/**
 * contracts.md "Users who leave": a deactivated user (users.active = 0, written here straight to the
 * table, as any writer may) is left out of every search kind, the recent lists, collaborator lists,
 * member lists and member counts, while GET /users/{id} and the batch still answer them; re-activated,
 * they are back everywhere. Each read runs once before the change, so the caches hold the old answer.
 */
describeEachStore('deactivated users', (store) => {
  let app: FastifyInstance;
  const setActive = (userId: string, active: 0 | 1) => store().db.updateTable('users').set({ active }).where('id', '=', userId).execute();
  const get = async (url: string, userId = 'zhang') => {
    const response = await app.inject({ method: 'GET', url, headers: asUser(userId) });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    return response.json();
  };
  const userIds = (users: Array<{ id: string }>) => users.map((user) => user.id);

  /** Everything a user of the fixture might see lilei (李雷: fe and be, granted plan) in. */
  async function sightings() {
    const alone = await search(app, 'zhang', { type: 'collaborator', keyword: '', fileId: 'plan' });
    const asZhang = await search(app, 'zhang', { type: ALL_KINDS, keyword: '', fileId: 'plan', pageSize: 50 });
    const byName = await search(app, 'zhang', { type: 'team_member', keyword: '李' });
    const asHan = await search(app, 'hanmeimei', { type: 'recent_contact,collaborator', keyword: '', fileId: 'plan', pageSize: 50 });
    const departments = await search(app, 'zhang', { type: 'department', keyword: '组', pageSize: 50 });
    return {
      collaboratorsAlone: ids(alone.collaborators),
      teamSearch: ids(asZhang.teamMembers),
      teamCount: asZhang.teamMembers.count,
      byName: ids(byName.teamMembers),
      collaboratorSearch: ids(asZhang.collaborators),
      recentSearch: ids(asHan.recentUsers),
      departmentCounts: Object.fromEntries(departments.department.results.map((d) => [d.id, d.allMemberCount])),
      recentList: userIds(await get('/search/users/recent?fileId=plan', 'hanmeimei')),
      collaborators: userIds(await get('/files/plan/collaborators')),
      teamMembers: userIds(await get('/teams/acme/members')),
      team: (await get('/users/current/team')).memberCount,
      fe: (await get('/departments/fe')).allMemberCount,
      rd: (await get('/departments/rd')).allMemberCount,
      root: (await get('/departments/TEAM_acme')).allMemberCount,
      children: await get('/departments/rd/children'),
      feMembers: await get('/departments/fe/members'),
      rootMembers: (await get('/departments/TEAM_acme/members?page=1&pageSize=100')).total,
    };
  }

  beforeAll(async () => {
    await seedSearchCompany(store().db);
    await addActivity(store().db, { userId: 'zhang', kind: 'mention', relatedUserId: 'lilei', occurredAt: '2024-05-01T08:00:00Z' });
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
  });

  it('are left out of every list and count, and back after re-activation', async () => {
    const before = await sightings();
    expect(before.teamSearch).toContain('lilei');
    expect(before.byName).toEqual(['lilei']);
    expect(before.collaboratorSearch).toEqual(['lilei', 'zhang']); // lilei first: zhang's contact
    expect(before.recentSearch).toContain('lilei');
    expect(before.recentList).toContain('lilei');
    expect(before.collaborators).toEqual(['zhang', 'lilei']);
    expect(before.teamMembers).toContain('lilei');
    expect(before.fe).toBe(3);
    expect(before.departmentCounts).toMatchObject({ fe: 3, be: 2 });

    await setActive('lilei', 0);
    const after = await sightings();
    expect(after.teamSearch).not.toContain('lilei');
    expect(after.teamCount).toBe(before.teamCount - 1);
    expect(after.byName).toEqual([]);
    expect(after.collaboratorSearch).toEqual(['zhang']);
    expect(after.collaboratorsAlone).toEqual(['zhang']);
    expect(after.recentSearch).not.toContain('lilei');
    expect(after.recentList).not.toContain('lilei');
    expect(after.collaborators).toEqual(['zhang']);
    expect(after.teamMembers).not.toContain('lilei');
    expect(after.team).toBe(before.team - 1);
    expect(after.rootMembers).toBe(before.rootMembers - 1);
    expect([after.fe, after.rd, after.root]).toEqual([before.fe - 1, before.rd - 1, before.root - 1]);
    expect(after.children).toEqual([
      { id: 'fe', name: '前端组', allMemberCount: 2 },
      { id: 'be', name: '后端组', allMemberCount: 1 },
    ]);
    expect(after.feMembers).toEqual({ total: 1, members: [expect.objectContaining({ id: 'hanmeimei' })] });
    expect(after.departmentCounts).toMatchObject({ fe: 2, be: 1 });

    // Still answered one by one: the editor shows the authors of old comments.
    expect(await get('/users/lilei')).toMatchObject({ id: 'lilei', name: '李雷' });
    const batch = await app.inject({ method: 'POST', url: '/users/batch/get', headers: asUser('zhang'), payload: { ids: ['lilei', 'wang'] } });
    expect(userIds(batch.json())).toEqual(['lilei', 'wang']);

    await setActive('lilei', 1);
    expect(await sightings()).toEqual(before);
  });

  it('leave a file they created without them in its collaborator lists', async () => {
    await setActive('zhang', 0);
    try {
      expect(userIds(await get('/files/plan/collaborators', 'lilei'))).toEqual(['lilei']);
      const found = await search(app, 'lilei', { type: 'collaborator,team_member', keyword: 'zhang', fileId: 'plan' });
      expect(found.collaborators.count + found.teamMembers.count).toBe(0);
      // Their files stay readable by those they were shared with.
      expect(ids((await search(app, 'lilei', { type: 'file_name', keyword: '季度' })).files)).toEqual(['plan']);
    } finally {
      await setActive('zhang', 1);
    }
    expect(userIds(await get('/files/plan/collaborators', 'lilei'))).toEqual(['zhang', 'lilei']);
  });

  it('are dropped by each kind of the port on its own, whatever other reads came before', async () => {
    const source = new StoreModelSource(store());
    const directory = new ModelDirectory(source, new SqlDirectory(store().db));
    const query = { viewerId: 'zhang', keyword: normaliseKeyword(''), page: { offset: 0, limit: 10 } };
    const collaborators = async () => (await directory.searchCollaborators({ ...query, fileId: 'plan' })).items.map((user) => user.id);
    const team = async () => (await directory.searchTeamMembers({ ...query, teamId: 'acme', keyword: normaliseKeyword('李') })).items.map((user) => user.id);
    expect([await collaborators(), await team()]).toEqual([['lilei', 'zhang'], ['lilei']]);
    await setActive('lilei', 0);
    try {
      expect(await collaborators()).toEqual(['zhang']);
      expect(await team()).toEqual([]);
    } finally {
      await setActive('lilei', 1);
      source.close();
    }
  });
});
