import { afterAll, beforeAll, expect, it } from 'vitest';
import { prng } from '../../bench/generate.js';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { SEARCH_COUNT_CAP } from '../../src/directory/search-page.js';
import { ROLES, type Grant } from '../../src/directory/types.js';
import { rebuildDepartmentClosure, replaceGrants, upsertDepartments, upsertFiles, upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { describeEachStore } from '../helpers/stores.js';
import { searchReference } from './search-reference.js';

/**
 * File search where a keyword matches more readable files than the count's cap, so the walk of the
 * file-name index (numbered newest first) stops once it has the page and the cap: 2,400 files of few
 * names and few distinct times (ties by name, then id), then files moved in time (newer, older, onto
 * another file's time), renamed, made pending and made unreadable, each answer compared with the
 * brute-force reference (docs/search.md), pages on both sides of the cap.
 */
const WORDS = ['plan', 'Plan Q3', 'budget plan', 'roadmap', '计划', 'planning 计划', 'an', 'Ann plan'];
const USERS = ['v1', 'v2', 'v3'];
const KEYWORDS = ['plan', 'pla', 'pl', 'p', 'an', 'lan', 'roadmap', 'budget', '计划', 'jihua', 'ann plan', 'q3'];
const PAGES = [
  { offset: 0, limit: 6 },
  { offset: 6, limit: 6 },
  { offset: 0, limit: 50 },
  { offset: 990, limit: 10 },
  // The last page before the cap (the route asks for no row past it).
  { offset: 996, limit: 4 },
];
const FILE_COUNT = 2_400;

describeEachStore('file search past the count cap, as files move in time', (store) => {
  let source: StoreModelSource;
  const rng = prng(37);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
  const time = (day: number) => `2026-01-${String(day).padStart(2, '0')}T00:00:00Z`;
  const files = Array.from({ length: FILE_COUNT }, (_, index) => ({
    id: `pf${index}`,
    name: pick(WORDS),
    type: 'document' as const,
    creatorId: pick(USERS),
    teamId: 'tm',
    createdAt: time(1),
    updatedAt: time(1 + Math.floor(rng() * 5)),
    views: null,
    ext: null,
    downloadUrl: null,
    fullUrl: null,
    restrictions: { copy: true, export: true },
    status: 'active' as 'active' | 'pending',
  }));
  const grantOf = (file: { id: string }): Grant[] => {
    const roll = rng();
    if (roll < 0.7) return [{ fileId: file.id, principalKind: 'team', principalId: 'tm', role: pick(ROLES) }];
    if (roll < 0.85) return [{ fileId: file.id, principalKind: 'department', principalId: 'g1', role: pick(ROLES) }];
    return [{ fileId: file.id, principalKind: 'user', principalId: pick(USERS), role: pick(ROLES) }];
  };

  beforeAll(async () => {
    const { db } = store();
    await upsertTeams(db, [{ id: 'tm', name: 'Team' }]);
    await upsertDepartments(db, [{ id: 'g1', name: 'One', teamId: 'tm', parentId: null }]);
    await rebuildDepartmentClosure(db);
    await upsertUsers(
      db,
      USERS.map((id, index) => ({ id, name: `User ${id}`, email: null, avatar: null, teamId: 'tm', watermark: null, active: true, departmentIds: index === 0 ? ['g1'] : [] })),
    );
    await upsertFiles(db, files);
    await replaceGrants(
      db,
      files.map((file) => file.id),
      files.flatMap(grantOf),
    );
    source = new StoreModelSource(store());
  }, 120_000);
  afterAll(() => source.close());

  async function expectReference(directory: ModelDirectory, step: string): Promise<void> {
    const reference = await searchReference(store().db);
    let capped = 0;
    for (const viewerId of USERS) {
      for (const text of KEYWORDS) {
        const expected = reference.readableFiles(viewerId, text);
        if (expected.length > SEARCH_COUNT_CAP) capped += 1;
        for (const page of PAGES) {
          const found = await directory.searchReadableFiles({ viewerId, keyword: normaliseKeyword(text), page });
          expect(
            { total: found.total, capped: found.capped, files: found.items.map((item) => ({ id: item.file.id, grantedRole: item.grantedRole })) },
            `${step}: viewer ${viewerId} keyword ${JSON.stringify(text)} page ${JSON.stringify(page)}`,
          ).toEqual({
            total: Math.min(expected.length, SEARCH_COUNT_CAP),
            capped: expected.length > SEARCH_COUNT_CAP,
            files: expected.slice(page.offset, page.offset + page.limit),
          });
        }
      }
    }
    // The walk's early stop is exercised: several keywords match more than the cap.
    expect(capped, step).toBeGreaterThan(USERS.length * 3);
  }

  it('answers as the reference past the cap, before and after files move in time, are renamed or become unreadable', async () => {
    const directory = new ModelDirectory(source, new SqlDirectory(store().db));
    await expectReference(directory, 'as loaded');
    // Moved in time only (the index keeps their names): newer than all, older than all, onto a tie.
    const moved = files.slice(0, 300).map((file, index) => ({ ...file, updatedAt: [time(20), time(1), time(3), '2025-12-31T00:00:00Z'][index % 4]! }));
    // Renamed (and moved), made pending.
    const renamed = files.slice(300, 360).map((file, index) => ({ ...file, name: index % 2 === 0 ? 'plan renamed' : 'other', updatedAt: time(2 + (index % 3)) }));
    const pending = files.slice(360, 400).map((file) => ({ ...file, status: 'pending' as const }));
    await upsertFiles(store().db, [...moved, ...renamed, ...pending]);
    // Unreadable: the grants of 200 files go to nobody's principal.
    const hidden = files.slice(400, 600);
    await replaceGrants(
      store().db,
      hidden.map((file) => file.id),
      hidden.map((file) => ({ fileId: file.id, principalKind: 'user', principalId: 'nobody', role: 'viewer' })),
    );
    await expectReference(directory, 'after moves, renames and lost grants');
    // Moved again, some back to where they were.
    await upsertFiles(
      store().db,
      files.slice(0, 150).map((file, index) => ({ ...file, updatedAt: index % 2 === 0 ? file.updatedAt : time(25) })),
    );
    await expectReference(directory, 'after moving again');
  }, 300_000);
});
