import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { replaceGrants, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { USERS } from '../helpers/directory-fixture.js';
import { describeEachStore, dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';
import { ids, search } from './search-http.js';
import { seedSearchCompany } from './search-fixture.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };
const hanmeimei = USERS.find((user) => user.id === 'hanmeimei')!;
const carol = USERS.find((user) => user.id === 'carol')!;

/**
 * What a search or a file open shows after each kind of directory write, asked first so the caches hold
 * the old answer: a renamed user (team member lists), a department's new member (member counts and the
 * member's own principals), a new or removed grant (principals' files), a renamed file (file lists).
 */
function observe(app: () => FastifyInstance) {
  const get = async (url: string, userId: string) => {
    const response = await app().inject({ method: 'GET', url, headers: asUser(userId) });
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  return async () => ({
    hanByOldName: ids((await search(app(), 'zhang', { type: 'team_member', keyword: '梅梅' })).teamMembers),
    hanByNewName: ids((await search(app(), 'zhang', { type: 'team_member', keyword: '韩露' })).teamMembers),
    salesCount: (await get('/departments/sales', 'zhang')).allMemberCount,
    salesFound: ids((await search(app(), 'zhang', { type: 'department', keyword: '销售' })).department),
    alicePlan: ids((await search(app(), 'alice', { type: 'file_name', keyword: '计划' })).files),
    aliceOpensPlan: (await get('/files/plan', 'alice')).permissions.readable,
    carolPlan: ids((await search(app(), 'carol', { type: 'file_name', keyword: '', pageSize: 50 })).files).includes('plan'),
    carolOpensPlan: (await get('/files/plan', 'carol')).permissions.readable,
    planByNewName: ids((await search(app(), 'zhang', { type: 'file_name', keyword: '年度' })).files),
  });
}

const BEFORE = {
  hanByOldName: ['hanmeimei'],
  hanByNewName: [],
  salesCount: 2,
  salesFound: ['sales'],
  alicePlan: [],
  aliceOpensPlan: false,
  carolPlan: false,
  carolOpensPlan: false,
  planByNewName: [],
};
const AFTER = {
  hanByOldName: [],
  hanByNewName: ['hanmeimei'],
  salesCount: 3,
  salesFound: ['sales'],
  alicePlan: ['plan'],
  aliceOpensPlan: true,
  carolPlan: true,
  carolOpensPlan: true,
  planByNewName: ['plan'],
};

const PLAN = { id: 'plan', name: '年度计划', type: 'documentPro', creatorId: 'zhang', createdAt: '2024-03-01T08:00:00Z', updatedAt: '2024-03-05T08:00:00Z' };
const PLAN_SHARING = [
  { principal: 'user:lilei', role: 'editor' },
  { principal: 'department:rd', role: 'viewer' },
  { principal: 'department:sales', role: 'viewer' },
];

describeEachStore('caches follow directory writes', (store) => {
  let app: FastifyInstance;
  const seen = observe(() => app);
  beforeAll(async () => {
    await seedSearchCompany(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY });
  });
  afterAll(async () => {
    await app.close();
  });

  it('through the management API', async () => {
    expect(await seen()).toEqual(BEFORE);
    const put = async (url: string, payload: Record<string, unknown>) => {
      const response = await app.inject({ method: 'PUT', url, headers: admin, payload });
      expect(response.statusCode, response.body).toBe(200);
    };
    await put('/api/users/hanmeimei', { ...hanmeimei, name: '韩露', avatar: undefined, watermark: undefined });
    await put('/api/users/carol', { ...carol, departmentIds: ['sales'], avatar: undefined, watermark: undefined });
    await put('/api/files/plan/grants/department:sales', { role: 'viewer' });
    await put('/api/files/plan', { ...PLAN, sharing: PLAN_SHARING });
    expect(await seen()).toEqual(AFTER);

    const removed = await app.inject({ method: 'DELETE', url: '/api/files/plan/grants/department:sales', headers: admin });
    expect(removed.statusCode).toBe(204);
    expect(await seen()).toMatchObject({ alicePlan: [], aliceOpensPlan: false, carolPlan: false, carolOpensPlan: false });
  });

  it('through a snapshot import', async () => {
    const result = await importSnapshot(directoryChanges(store()), {
      users: [{ ...hanmeimei, name: '韩梅梅', avatar: undefined, watermark: undefined }],
      files: [{ ...PLAN, name: '季度计划', sharing: PLAN_SHARING }],
    });
    expect(result.ok).toBe(true);
    expect(await seen()).toEqual({ ...AFTER, hanByOldName: ['hanmeimei'], hanByNewName: [], planByNewName: [] });
  });
});

/** Two stores on one database: instance A serves, instance B writes straight to the tables. */
async function openTwice(dialect: DialectName): Promise<{ a: OpenDatabase; b: OpenDatabase; done: () => Promise<void> }> {
  if (dialect !== 'sqlite') {
    const { open, drop } = await freshStore(dialect);
    const a = await open();
    const b = await open();
    return { a, b, done: async () => (await Promise.all([a.close(), b.close()]), await drop()) };
  }
  const work = mkdtempSync(join(tmpdir(), 'collab-two-'));
  const a = await openDatabase(`sqlite:${join(work, 'store.db')}`);
  const b = await openDatabase(`sqlite:${join(work, 'store.db')}`);
  return { a, b, done: async () => (await Promise.all([a.close(), b.close()]), rmSync(work, { recursive: true, force: true })) };
}

for (const dialect of dialects) {
  describe(`caches follow a write by another instance on the same database [${dialect}]`, () => {
    let stores: Awaited<ReturnType<typeof openTwice>>;
    let app: FastifyInstance;
    const seen = observe(() => app);
    beforeAll(async () => {
      stores = await openTwice(dialect);
      await seedSearchCompany(stores.a.db);
      app = await buildTestApp(stores.a);
    });
    afterAll(async () => {
      await app.close();
      await stores.done();
    });

    it('sees users, memberships, grants and files written by the other instance (within the read model poll)', async () => {
      expect(await seen()).toEqual(BEFORE);
      const { db } = stores.b;
      await upsertUsers(db, [{ ...hanmeimei, name: '韩露' }]);
      await upsertUsers(db, [{ ...carol, departmentIds: ['sales'] }]);
      await replaceGrants(
        db,
        ['plan'],
        [
          { fileId: 'plan', principalKind: 'user', principalId: 'lilei', role: 'editor' },
          { fileId: 'plan', principalKind: 'department', principalId: 'rd', role: 'viewer' },
          { fileId: 'plan', principalKind: 'department', principalId: 'sales', role: 'viewer' },
        ],
      );
      await db.updateTable('files').set({ name: '年度计划', name_pinyin: 'niandujihua', name_initials: 'ndjh' }).where('id', '=', 'plan').execute();
      // The callbacks answer from the read model, which reads the change feed every 250 ms (docs/scaling.md).
      await vi.waitFor(async () => expect(await seen()).toEqual(AFTER), { timeout: 5000, interval: 50 });
    });
  });
}
