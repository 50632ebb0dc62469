import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { SEARCH_COUNT_CAP } from '../../src/directory/search-page.js';
import { replaceGrants, upsertFiles, upsertUsers } from '../../src/store/directory-writer.js';
import { SqlDirectory } from '../../src/store/sql-directory.js';
import { SEARCH_BOUNDS } from '../../src/store/search/search-bounds.js';
import { FILES } from '../helpers/directory-fixture.js';
import { buildTestApp } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { ids, search } from './search-http.js';
import { addActivity, REPORTS, seedSearchCompany, UNREADABLE_FOR_HANMEIMEI } from './search-fixture.js';

/** More acme members than the count cap: Bulk 0001 .. Bulk 1010 (bulk0001@ ..). */
const BULK = Array.from({ length: SEARCH_COUNT_CAP + 10 }, (_, i) => {
  const n = String(i + 1).padStart(4, '0');
  return { id: `bulk${n}`, name: `Bulk ${n}`, email: `bulk${n}@example.com`, avatar: null, teamId: 'acme', departmentIds: [], watermark: null };
});

describeEachStore('search at scale: capped counts, the empty keyword, both file plans', (store) => {
  let app: FastifyInstance;
  beforeAll(async () => {
    await seedSearchCompany(store().db);
    await upsertUsers(store().db, BULK);
    // zhang mentioned Bulk 0900: a contact, so it leads the empty keyword's list.
    await addActivity(store().db, { userId: 'zhang', kind: 'mention', occurredAt: '2024-05-01T08:00:00Z', relatedUserId: 'bulk0900' });
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
  });

  describe('count cap', () => {
    it(`reports at most ${SEARCH_COUNT_CAP} matches, with pages over exactly those`, async () => {
      const first = await search(app, 'zhang', { type: 'team_member', keyword: 'bulk', page: 0, pageSize: 50 });
      expect(first.teamMembers).toMatchObject({ count: SEARCH_COUNT_CAP, pageCount: SEARCH_COUNT_CAP / 50, countCapped: true });
      const last = await search(app, 'zhang', { type: 'team_member', keyword: 'bulk', page: SEARCH_COUNT_CAP / 50 - 1, pageSize: 50 });
      expect(last.teamMembers.results).toHaveLength(50);
      const past = await search(app, 'zhang', { type: 'team_member', keyword: 'bulk', page: SEARCH_COUNT_CAP / 50, pageSize: 50 });
      expect(past.teamMembers).toEqual({ count: SEARCH_COUNT_CAP, page: SEARCH_COUNT_CAP / 50, pageSize: 50, pageCount: SEARCH_COUNT_CAP / 50, results: [], countCapped: true });
      // A page size that does not divide the cap: the last page holds the remainder.
      const odd = await search(app, 'zhang', { type: 'team_member', keyword: 'bulk', page: 142, pageSize: 7 });
      expect(odd.teamMembers).toMatchObject({ count: SEARCH_COUNT_CAP, pageCount: 143 });
      expect(odd.teamMembers.results).toHaveLength(SEARCH_COUNT_CAP - 142 * 7);
    });

    it('still counts exactly under the cap', async () => {
      const found = await search(app, 'zhang', { type: 'team_member', keyword: 'bulk 09', pageSize: 50 });
      expect(found.teamMembers).toMatchObject({ count: 100, pageCount: 2 });
      expect(found.teamMembers).not.toHaveProperty('countCapped');
    });
  });

  describe('empty keyword over a large team', () => {
    it('lists contacts first, then everyone by name, without repeating the contact', async () => {
      const first = await search(app, 'zhang', { type: 'team_member', keyword: '', page: 0, pageSize: 5 });
      expect(first.teamMembers.count).toBe(SEARCH_COUNT_CAP);
      expect(ids(first.teamMembers)).toEqual(['bulk0900', 'alice', 'ann', 'annalee', 'bob']);
      const second = await search(app, 'zhang', { type: 'team_member', keyword: '', page: 1, pageSize: 5 });
      expect(ids(second.teamMembers)).toEqual(['bulk0001', 'bulk0002', 'bulk0003', 'bulk0004', 'bulk0005']);
      const around = await search(app, 'zhang', { type: 'team_member', keyword: '', page: 0, pageSize: 50 });
      const all = [...ids(around.teamMembers)];
      for (let page = 1; page < 20; page++) {
        all.push(...ids((await search(app, 'zhang', { type: 'team_member', keyword: '', page, pageSize: 50 })).teamMembers));
      }
      expect(all).toHaveLength(SEARCH_COUNT_CAP);
      expect(new Set(all).size).toBe(SEARCH_COUNT_CAP);
      expect(all.filter((id) => id === 'bulk0900')).toHaveLength(1);
    });
  });

  describe('scan bounds', () => {
    const bounded = (bounds: Partial<typeof SEARCH_BOUNDS>) => new SqlDirectory(store().db, { bounds: { ...SEARCH_BOUNDS, ...bounds } });

    it('rank only the first matches of a keyword too common to read whole, and say the count is capped', async () => {
      const narrow = await buildTestApp(store(), {}, { directory: bounded({ peopleScan: 5 }) });
      try {
        const found = await search(narrow, 'zhang', { type: 'team_member,department', keyword: 'tester', pageSize: 50 });
        expect(found.teamMembers).toMatchObject({ count: 5, pageCount: 1, countCapped: true });
        expect(ids(found.teamMembers).every((id) => id.startsWith('tester'))).toBe(true);
        // Ranked among themselves as always: names in order.
        expect(ids(found.teamMembers)).toEqual([...ids(found.teamMembers)].sort());
        // A keyword with fewer matches than the bound is exact and says nothing.
        const few = await search(narrow, 'zhang', { type: 'team_member', keyword: 'tester 1' });
        expect(few.teamMembers).toMatchObject({ count: 3 });
        expect(few.teamMembers).not.toHaveProperty('countCapped');
      } finally {
        await narrow.close();
      }
    });

    it('match files one by one for a searcher with few readable files, exactly', async () => {
      const exact = bounded({});
      const scanned = bounded({ fileScan: 2, readableScan: 1000 });
      for (const keyword of ['周报', '', 'e']) {
        const query = { viewerId: 'hanmeimei', keyword: normaliseKeyword(keyword), page: { offset: 0, limit: 50 } };
        const a = await exact.searchReadableFiles(query);
        const b = await scanned.searchReadableFiles(query);
        expect(b.items.map((item) => item.file.id), keyword).toEqual(a.items.map((item) => item.file.id));
        expect([b.total, b.capped], keyword).toEqual([a.total, a.capped]);
      }
    });

    it('keep to the first files read for a searcher who may read many, readable ones only, and say so', async () => {
      const exact = await bounded({}).searchReadableFiles({ viewerId: 'hanmeimei', keyword: normaliseKeyword('周报'), page: { offset: 0, limit: 50 } });
      const cut = await bounded({ fileScan: 3, readableScan: 0 }).searchReadableFiles({ viewerId: 'hanmeimei', keyword: normaliseKeyword('周报'), page: { offset: 0, limit: 50 } });
      expect(cut.capped).toBe(true);
      expect(cut.total).toBe(cut.items.length);
      expect(cut.items.length).toBeGreaterThan(0);
      const all = exact.items.map((item) => item.file.id);
      expect(cut.items.every((item) => all.includes(item.file.id) && !UNREADABLE_FOR_HANMEIMEI.includes(item.file.id))).toBe(true);
    });
  });

  describe('file plans', () => {
    // fileScan 1: every keyword with more than one match is matched over the searcher's readable files;
    // the default ranks the keyword's matches and keeps the readable ones.
    const withBounds = (bounds: Partial<typeof SEARCH_BOUNDS>) => new SqlDirectory(store().db, { bounds: { ...SEARCH_BOUNDS, ...bounds } });
    const plans = () => ({ fromMatches: withBounds({}), fromReadable: withBounds({ fileScan: 1 }) });

    it('give the same ranked, readable-only results and counts', async () => {
      const { fromMatches, fromReadable } = plans();
      for (const viewerId of ['hanmeimei', 'zhang', 'lilei', 'bob', 'outsider']) {
        for (const keyword of ['周报', '周', 'plan', '计划', 'jidu', 'zb', 'e', '机密', '']) {
          for (const offset of [0, 3]) {
            const query = { viewerId, keyword: normaliseKeyword(keyword), page: { offset, limit: 3 } };
            const a = await fromMatches.searchReadableFiles(query);
            const b = await fromReadable.searchReadableFiles(query);
            const label = `${viewerId} ${keyword} ${offset}`;
            expect(b.total, label).toBe(a.total);
            expect(b.items.map((item) => item.file.id), label).toEqual(a.items.map((item) => item.file.id));
            if (viewerId === 'hanmeimei') {
              expect(
                a.items.some((item) => UNREADABLE_FOR_HANMEIMEI.includes(item.file.id)),
                label,
              ).toBe(false);
            }
          }
        }
      }
    });

    it('list the empty keyword the same from the newest-files walk as from the ranked readable set', async () => {
      // hanmeimei worked on two files lately: they lead, then the rest by updatedAt.
      await addActivity(store().db, { userId: 'hanmeimei', kind: 'edit', occurredAt: '2024-06-01T08:00:00Z', fileId: 'report3' });
      await addActivity(store().db, { userId: 'hanmeimei', kind: 'open', occurredAt: '2024-06-02T08:00:00Z', fileId: 'plan' });
      const walk = withBounds({});
      const short = withBounds({ fileScan: 3 });
      const ranked = withBounds({ fileScan: 0 });
      for (const viewerId of ['hanmeimei', 'zhang', 'bob', 'outsider']) {
        for (const excludeFileId of [undefined, 'report5']) {
          for (const offset of [0, 1, 2, 4, 8, 20]) {
            const query = { viewerId, keyword: normaliseKeyword(''), page: { offset, limit: 2 }, ...(excludeFileId ? { excludeFileId } : {}) };
            const expected = await ranked.searchReadableFiles(query);
            const label = `${viewerId} ${excludeFileId} ${offset}`;
            for (const search of [walk, short]) {
              const found = await search.searchReadableFiles(query);
              expect(found.total, label).toBe(expected.total);
              expect(found.items.map((item) => item.file.id), label).toEqual(expected.items.map((item) => item.file.id));
            }
          }
        }
      }
      const first = await walk.searchReadableFiles({ viewerId: 'hanmeimei', keyword: normaliseKeyword(''), page: { offset: 0, limit: 3 } });
      expect(first.items.map((item) => item.file.id)).toEqual(['plan', 'report3', 'report7']);
    });

    it('find files by one and two characters, following renames and deletes', async () => {
      const { fromMatches } = plans();
      const find = async (keyword: string) =>
        (await fromMatches.searchReadableFiles({ viewerId: 'hanmeimei', keyword: normaliseKeyword(keyword), page: { offset: 0, limit: 50 } })).items.map(
          (item) => item.file.id,
        );
      // report3 first: hanmeimei worked on it (previous test), the rest newest first.
      expect(await find('周报')).toEqual(['report3', 'report7', 'report6', 'report5', 'report4', 'report2', 'report1']);
      expect(await find('zb')).toHaveLength(7);
      await upsertFiles(store().db, [{ ...REPORTS[0]!, name: '月报 01' }]);
      expect(await find('周报')).not.toContain('report1');
      expect(await find('月报')).toEqual(['report1']);
      expect(await find('yb')).toEqual(['report1']);
      expect(await find('月')).toEqual(['report1']);
      await replaceGrants(store().db, ['report2'], []);
      await store().db.deleteFrom('files').where('id', '=', 'report2').execute();
      expect(await find('周报')).toEqual(['report3', 'report7', 'report6', 'report5', 'report4']);
      // Re-upserting unchanged rows (a snapshot imported again) keeps one entry per file.
      await upsertFiles(store().db, [...FILES, ...REPORTS.slice(2)]);
      expect(await find('周报')).toEqual(['report3', 'report7', 'report6', 'report5', 'report4']);
    });
  });
});
