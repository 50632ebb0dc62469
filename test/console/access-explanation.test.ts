import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemoIfEmpty } from '../../src/composition/demo-data.js';
import { explainAccess, type AccessExplanation } from '../../src/directory/access-explanation.js';
import { DirectoryService } from '../../src/directory/directory-service.js';
import { sqlAccessFacts } from '../../src/store/directory-reads/access-facts.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';

const KEY = 'console-admin-key-0123456789';
const admin = { authorization: `Bearer ${KEY}` };

describeEachStore('access explanation on the demo company', (store) => {
  let app: FastifyInstance;
  const explain = async (userId: string, fileId: string): Promise<AccessExplanation> => {
    const facts = await sqlAccessFacts(store().db).accessFacts(fileId, userId);
    if (typeof facts === 'string') throw new Error(facts);
    return explainAccess(facts);
  };
  const explanationOf = (found: AccessExplanation, permission: string) => found.explanations.find((entry) => entry.permission === permission);

  beforeAll(async () => {
    await seedDemoIfEmpty(store());
    app = await buildTestApp(store(), { adminApiKey: KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  it('agrees with permissionsFor (as the callbacks compute it) for every user and every file', async () => {
    const service = new DirectoryService(SqlDirectory.over(store()), { watermarkTemplate: [] });
    const users = await store().db.selectFrom('users').select('id').execute();
    const files = await store().db.selectFrom('files').select('id').execute();
    expect(users.length * files.length).toBe(240);
    let readable = 0;
    for (const { id: fileId } of files) {
      const file = await service.directory.getFile(fileId);
      if (!file) throw new Error(fileId);
      for (const { id: userId } of users) {
        const found = await explain(userId, fileId);
        expect(found.permissions, `${userId} on ${fileId}`).toEqual(await service.permissionsOf(file, userId));
        // Each granted permission has a path that gives it; each refused one has none.
        for (const entry of found.explanations) expect(entry.givenBy.length > 0, `${userId} ${fileId} ${entry.permission}`).toBe(entry.granted);
        if (found.permissions.readable) readable += 1;
      }
    }
    // Not a vacuous agreement: most pairs may read, some may not.
    expect(readable).toBeGreaterThan(100);
    expect(readable).toBeLessThan(240);
  });

  it('names the ancestor department and the path down to the user for a department grant', async () => {
    // plan-2024q3: department:rd editor, team:galaxy viewer. wangwu is in web, under fe, under rd.
    const found = await explain('wangwu', 'plan-2024q3');
    expect(found.role).toBe('editor');
    const editable = explanationOf(found, 'editable');
    expect(editable?.granted).toBe(true);
    expect(editable?.givenBy).toEqual([
      {
        kind: 'department',
        role: 'editor',
        department: { id: 'rd', name: '研发中心' },
        path: [
          { id: 'rd', name: '研发中心' },
          { id: 'fe', name: '前端组' },
          { id: 'web', name: 'Web 小组' },
        ],
      },
    ]);
    expect(explanationOf(found, 'readable')?.givenBy.map((path) => path.kind)).toEqual(['department', 'team']);
    expect(explanationOf(found, 'manageable')).toEqual({ permission: 'manageable', granted: false, givenBy: [], removedBy: null });
    expect(found.otherGrants).toEqual([{ principal: 'user:chenjing', principalName: '陈静', role: 'commenter' }]);
  });

  it('lists one path per department of the user that the grant reaches', async () => {
    // zhengshi is in infra (under be, under rd) and in web (under fe, under rd).
    const found = await explain('zhengshi', 'plan-2024q3');
    const departmentPaths = found.paths.filter((path) => path.kind === 'department');
    expect(departmentPaths.map((path) => path.kind === 'department' && path.path.map((node) => node.id))).toEqual([
      ['rd', 'be', 'infra'],
      ['rd', 'fe', 'web'],
    ]);
  });

  it('names the restriction that takes copy and export away, and the creator as manager', async () => {
    // handbook: team:galaxy viewer, department:hr manager, copy and export restricted; majun created it.
    const viewer = await explain('zhangsan', 'handbook');
    expect(viewer.role).toBe('viewer');
    expect(explanationOf(viewer, 'copyable')).toEqual({ permission: 'copyable', granted: false, givenBy: [], removedBy: 'restrictions.copy' });
    expect(explanationOf(viewer, 'exportable')).toEqual({ permission: 'exportable', granted: false, givenBy: [], removedBy: 'restrictions.export' });
    expect(explanationOf(viewer, 'readable')?.givenBy).toEqual([{ kind: 'team', role: 'viewer', team: { id: 'galaxy', name: '星河科技 Galaxy Tech' } }]);

    const creator = await explain('majun', 'handbook');
    expect(creator.role).toBe('manager');
    expect(explanationOf(creator, 'exportable')?.givenBy.map((path) => path.kind)).toEqual(['creator', 'department']);
    expect(explanationOf(creator, 'exportable')?.removedBy).toBeNull();
  });

  it('explains no access: no role, nothing given, and the grants that reach others', async () => {
    const found = await explain('zhangsan', 'salary-draft');
    expect(found.role).toBeNull();
    expect(Object.values(found.permissions).every((value) => value === false)).toBe(true);
    expect(found.paths).toEqual([]);
    expect(found.explanations.every((entry) => entry.givenBy.length === 0 && entry.removedBy === null)).toBe(true);
  });

  it('notes a deactivated user', async () => {
    await store().db.updateTable('users').set({ active: 0 }).where('id', '=', 'ivy').execute();
    try {
      const found = await explain('ivy', 'oncall');
      expect(found.permissions.readable).toBe(true);
      expect(found.notes.join(' ')).toContain('deactivated');
    } finally {
      await store().db.updateTable('users').set({ active: 1 }).where('id', '=', 'ivy').execute();
    }
  });

  it('answers GET /api/access, 404 for an unknown user or file, 400 without both ids, 401 without the key', async () => {
    const ok = await app.inject({ method: 'GET', url: '/api/access?userId=wangwu&fileId=plan-2024q3', headers: admin });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual(JSON.parse(JSON.stringify(await explain('wangwu', 'plan-2024q3'))));
    const noUser = await app.inject({ method: 'GET', url: '/api/access?userId=nobody&fileId=plan-2024q3', headers: admin });
    expect([noUser.statusCode, noUser.json().error.code]).toEqual([404, 'user_not_found']);
    const noFile = await app.inject({ method: 'GET', url: '/api/access?userId=wangwu&fileId=nothing', headers: admin });
    expect([noFile.statusCode, noFile.json().error.code]).toEqual([404, 'file_not_found']);
    const missing = await app.inject({ method: 'GET', url: '/api/access?userId=wangwu', headers: admin });
    expect(missing.statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/api/access?userId=wangwu&fileId=plan-2024q3' })).statusCode).toBe(401);
  });
});
