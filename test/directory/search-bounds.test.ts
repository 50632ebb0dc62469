import { afterAll, beforeAll, expect, it } from 'vitest';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { MODEL_SEARCH_BOUNDS } from '../../src/directory/read-model/model-search.js';
import { SEARCH_COUNT_CAP } from '../../src/directory/search-page.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { search as searchHttp } from '../search/search-http.js';

/**
 * What one search may cost (docs/search.md "Bounds" and "Counts and their cap"): the count is exact up to
 * the cap and says `capped` past it; a keyword whose candidates pass a bound is answered from the
 * candidates checked, by the same ranking rules, and says `capped` too.
 */
describeEachStore('search bounds and the count cap', (store) => {
  let source: StoreModelSource;
  const TEAM = 'big';
  // 1,200 people whose names all hold "wangx"; 3 named Zhou.
  const people = Array.from({ length: 1_200 }, (_, i) => ({ id: `p${String(i).padStart(4, '0')}`, name: `Wangxiao ${String(i).padStart(4, '0')}` }));
  const zhous = ['Zhou A', 'Zhou B', 'Zhou C'].map((name, i) => ({ id: `z${i}`, name }));

  beforeAll(async () => {
    await upsertTeams(store().db, [{ id: TEAM, name: 'Big' }]);
    await upsertUsers(
      store().db,
      [...people, ...zhous].map(({ id, name }) => ({ id, name, email: null, avatar: null, teamId: TEAM, watermark: null, departmentIds: [] })),
    );
    source = new StoreModelSource(store());
    await source.loaded;
  }, 120_000);
  afterAll(() => source.close());

  const search = (directory: ModelDirectory, keyword: string, offset = 0, limit = 20) =>
    directory.searchTeamMembers({ viewerId: 'z0', keyword: normaliseKeyword(keyword), teamId: TEAM, page: { offset, limit } });

  it('counts exactly up to the cap and says capped past it; pages stop at the cap', async () => {
    const directory = new ModelDirectory(source, new SqlDirectory(store().db));
    const everyone = await search(directory, '');
    expect(SEARCH_COUNT_CAP).toBe(1_000);
    expect({ total: everyone.total, capped: everyone.capped }).toEqual({ total: 1_000, capped: true });
    // Through the callback: pages end at the cap, and the wrapper says the count is capped.
    const app = await buildTestApp(store());
    try {
      const last = await searchHttp(app, 'z0', { type: 'team_member', keyword: '', page: 99, pageSize: 10 });
      expect(last.teamMembers).toMatchObject({ count: 1_000, page: 99, pageSize: 10, pageCount: 100, countCapped: true });
      expect(last.teamMembers.results).toHaveLength(10);
      const past = await searchHttp(app, 'z0', { type: 'team_member', keyword: '', page: 100, pageSize: 10 });
      expect(past.teamMembers).toMatchObject({ count: 1_000, page: 100, results: [], countCapped: true });
      const zhou = await searchHttp(app, 'z0', { type: 'team_member', keyword: 'zhou', pageSize: 10 });
      expect(zhou.teamMembers).toEqual({ count: 3, page: 0, pageSize: 10, pageCount: 1, results: expect.any(Array) });
    } finally {
      await app.close();
    }

    const few = await search(directory, 'zhou');
    expect({ total: few.total, capped: few.capped, ids: few.items.map((user) => user.id) }).toEqual({ total: 3, capped: false, ids: ['z0', 'z1', 'z2'] });
  });

  it('a longer keyword matching more people than the cap: the first pages by name, then id, and the cap', async () => {
    const directory = new ModelDirectory(source, new SqlDirectory(store().db));
    // `wangxiao` starts every name (tier 1), `angxiao` is inside them (tier 2), `wangxiao 1` matches 200.
    for (const [keyword, matching] of [
      ['wangxiao', people],
      ['angxiao', people],
      ['wangxiao 1', people.filter((person) => person.name.startsWith('Wangxiao 1'))],
    ] as const) {
      for (const [offset, limit] of [
        [0, 6],
        [6, 6],
        [0, 50],
        [190, 20],
        [994, 6],
        // The last page before the cap (the route asks for no row past it).
        [996, 4],
      ] as const) {
        const found = await search(directory, keyword, offset, limit);
        expect({ total: found.total, capped: found.capped, ids: found.items.map((user) => user.id) }, `${keyword} ${offset}+${limit}`).toEqual({
          total: Math.min(matching.length, SEARCH_COUNT_CAP),
          capped: matching.length > SEARCH_COUNT_CAP,
          ids: matching.slice(offset, offset + limit).map((person) => person.id),
        });
      }
    }
  });

  it('a keyword whose candidates pass the bound answers from those checked, ranked alike, and says so', async () => {
    const unbounded = new ModelDirectory(source, new SqlDirectory(store().db));
    const exact = await search(unbounded, 'wangxiao 01', 0, 200);
    // Within the bound (5,000 people checked): every match counted, 100 of them, not capped.
    expect({ total: exact.total, capped: exact.capped }).toEqual({ total: 100, capped: false });
    expect(exact.items.map((user) => user.id)).toEqual(people.slice(100, 200).map((person) => person.id));

    const bounds = { ...MODEL_SEARCH_BOUNDS, peopleScan: 50 };
    const bounded = new ModelDirectory(source, new SqlDirectory(store().db), bounds);
    const found = await search(bounded, 'wangxiao 01', 0, 200);
    expect(found.capped).toBe(true);
    expect(found.total).toBeLessThanOrEqual(bounds.peopleScan);
    expect(found.total).toBe(found.items.length);
    // What it found are matches, in the ranking's order (the same as the unbounded answer's).
    const order = exact.items.map((user) => user.id);
    const ids = found.items.map((user) => user.id);
    for (const id of ids) expect(order).toContain(id);
    expect([...ids].sort((a, b) => order.indexOf(a) - order.indexOf(b))).toEqual(ids);
  });
});
