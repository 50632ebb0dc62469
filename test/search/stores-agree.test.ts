import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { dialects, openTestStore } from '../helpers/stores.js';
import { ALL_KINDS, search } from './search-http.js';
import { addActivity, seedSearchCompany } from './search-fixture.js';

const VIEWERS = ['zhang', 'hanmeimei', 'lilei', 'alice', 'olga', 'outsider'];
const KEYWORDS = ['', 'a', 'an', 'ann', '梅', '周报', 'zb', 'hmm', 'meimei', 'tester', '计划', 'o', '娜', 'bulk', 'example', 'kaifa'];

/**
 * The same company on SQLite, on PostgreSQL and on MySQL answers every search the same, byte for byte:
 * matching, ranking, paging, counts and permissions (the read model each store loads, and the activity it holds).
 * Each server store is compared with SQLite.
 */
describe.skipIf(dialects.length < 2)(`search on ${dialects.join(', ')} (skipped without TEST_POSTGRES_URL or TEST_MYSQL_URL)`, () => {
  const stores: OpenDatabase[] = [];
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    for (const dialect of dialects) {
      const store = await openTestStore(dialect);
      await seedSearchCompany(store.db);
      await addActivity(store.db, { userId: 'hanmeimei', kind: 'mention', relatedUserId: 'bob', fileId: 'sheet', occurredAt: '2024-05-01T09:00:00Z' });
      await addActivity(store.db, { userId: 'wang', kind: 'mention', relatedUserId: 'hanmeimei', fileId: 'plan', occurredAt: '2024-05-02T09:00:00Z' });
      await addActivity(store.db, { userId: 'hanmeimei', kind: 'edit', fileId: 'report3', occurredAt: '2024-05-03T10:00:00Z' });
      await addActivity(store.db, { userId: 'zhang', kind: 'open', fileId: 'secret', occurredAt: '2024-05-04T10:00:00Z' });
      stores.push(store);
      apps.push(await buildTestApp(store));
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    for (const store of stores) await store.close();
  });

  it('give the same results, counts and pages for every kind, keyword and viewer', async () => {
    let compared = 0;
    for (const viewer of VIEWERS) {
      for (const keyword of KEYWORDS) {
        for (const [page, pageSize] of [
          [0, 6],
          [1, 3],
        ] as const) {
          const body = { type: ALL_KINDS, keyword, fileId: 'plan', page, pageSize };
          const [sqlite, ...others] = await Promise.all(apps.map((app) => search(app, viewer, body)));
          others.forEach((other, index) => expect(other, `${dialects[index + 1]} ${viewer} ${JSON.stringify(body)}`).toEqual(sqlite));
          compared += 1;
        }
      }
    }
    expect(compared).toBe(VIEWERS.length * KEYWORDS.length * 2);
  });

  it('give the same recent lists', async () => {
    for (const viewer of VIEWERS) {
      for (const url of ['/search/users/recent?fileId=plan', '/search/files/recent?fileId=report1', '/search/files/recent?fileId=none']) {
        const [sqlite, ...others] = await Promise.all(apps.map((app) => app.inject({ method: 'GET', url, headers: asUser(viewer) })));
        others.forEach((other, index) => expect(other.json(), `${dialects[index + 1]} ${viewer} ${url}`).toEqual(sqlite?.json()));
      }
    }
  });
});
