import { afterAll, beforeAll, expect, it } from 'vitest';
import { prng } from '../../bench/generate.js';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { MODEL_SEARCH_BOUNDS } from '../../src/directory/read-model/model-search.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { ROLES, type Grant } from '../../src/directory/types.js';
import { rebuildDepartmentClosure, replaceGrants, upsertDepartments, upsertFiles, upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { describeEachStore } from '../helpers/stores.js';
import { searchReference } from './search-reference.js';

/**
 * File search on a world large enough for its shortcuts to matter: 240 files whose names match one keyword
 * at every tier (whole name, start, inside, pinyin start, inside pinyin), many readable by everyone (a
 * team grant), pages taken at several offsets, both with the default bounds and on the path of users who
 * may read many files. Each answer equals the brute-force reference (docs/search.md).
 */
const WORDS = ['plan', 'Plan Q3', 'budget plan', 'roadmap', 'road', '计划', '季度计划', '张三的计划', 'jihua', 'planning 计划', 'Ann', 'ann notes', 'e', 'de'];
const USERS = ['v1', 'v2', 'v3', 'v4', 'v5'];
const DEPARTMENTS = ['g1', 'g2', 'g3'];
const KEYWORDS = ['', 'plan', 'p', 'pl', 'an', 'e', 'ro', 'road', 'roadmap', '计', '计划', 'jh', 'jihua', 'ji', 'hua', 'ann', 'nn', 'lan', 'xyz', 'd'];
const PAGES = [
  { offset: 0, limit: 1000 },
  { offset: 0, limit: 6 },
  { offset: 5, limit: 7 },
  { offset: 40, limit: 20 },
];

function random(seed: number) {
  const next = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  return { next, pick };
}

describeEachStore('file search against the reference on 240 files', (store) => {
  let source: StoreModelSource;
  beforeAll(async () => {
    const rng = random(21);
    const { db } = store();
    await upsertTeams(db, [{ id: 'tm', name: 'Team' }]);
    await upsertDepartments(db, [
      { id: 'g1', name: 'One', teamId: 'tm', parentId: null },
      { id: 'g2', name: 'Two', teamId: 'tm', parentId: 'g1' },
      { id: 'g3', name: 'Three', teamId: 'tm', parentId: null },
    ]);
    await rebuildDepartmentClosure(db);
    await upsertUsers(
      db,
      USERS.map((id, index) => ({
        id,
        name: `User ${id}`,
        email: null,
        avatar: null,
        teamId: 'tm',
        watermark: null,
        active: true,
        departmentIds: index % 2 === 0 ? ['g2'] : ['g3'],
      })),
    );
    const files = Array.from({ length: 240 }, (_, index) => ({
      id: `sf${index}`,
      name: rng.next() < 0.5 ? rng.pick(WORDS) : `${rng.pick(WORDS)} ${rng.pick(WORDS)}`,
      type: 'document' as const,
      creatorId: rng.pick(USERS),
      teamId: 'tm',
      createdAt: '2026-01-01T00:00:00Z',
      // Few distinct times: ties broken by name then id.
      updatedAt: `2026-01-0${1 + Math.floor(rng.next() * 4)}T00:00:00Z`,
      views: null,
      ext: null,
      downloadUrl: null,
      fullUrl: null,
      restrictions: { copy: true, export: true },
      status: rng.next() < 0.9 ? ('active' as const) : ('pending' as const),
    }));
    await upsertFiles(db, files);
    const grants: Grant[] = [];
    for (const file of files) {
      const roll = rng.next();
      if (roll < 0.5) grants.push({ fileId: file.id, principalKind: 'team', principalId: 'tm', role: rng.pick(ROLES) });
      else if (roll < 0.7) grants.push({ fileId: file.id, principalKind: 'department', principalId: rng.pick(DEPARTMENTS), role: rng.pick(ROLES) });
      else if (roll < 0.9) grants.push({ fileId: file.id, principalKind: 'user', principalId: rng.pick(USERS), role: rng.pick(ROLES) });
    }
    await replaceGrants(
      db,
      files.map((file) => file.id),
      grants,
    );
    source = new StoreModelSource(store());
  });
  afterAll(() => source.close());

  it('every keyword, viewer and page answers as the reference, with the default bounds and on the many-readable path', async () => {
    const reference = await searchReference(store().db);
    const directories = [
      ['default', new ModelDirectory(source, new SqlDirectory(store().db))],
      ['walking', new ModelDirectory(source, new SqlDirectory(store().db), { ...MODEL_SEARCH_BOUNDS, readableScan: 0 })],
    ] as const;
    let compared = 0;
    for (const [label, directory] of directories) {
      for (const viewerId of USERS) {
        for (const text of KEYWORDS) {
          const expected = reference.readableFiles(viewerId, text);
          for (const page of PAGES) {
            const found = await directory.searchReadableFiles({ viewerId, keyword: normaliseKeyword(text), page });
            const got = { total: found.total, files: found.items.map((item) => ({ id: item.file.id, grantedRole: item.grantedRole })) };
            expect(got, `${label} viewer ${viewerId} keyword ${JSON.stringify(text)} page ${JSON.stringify(page)}`).toEqual({
              total: expected.length,
              files: expected.slice(page.offset, page.offset + page.limit),
            });
            compared += 1;
          }
        }
      }
    }
    expect(compared).toBe(2 * USERS.length * KEYWORDS.length * PAGES.length);
  }, 120_000);
});
