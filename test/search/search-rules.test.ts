import { describe, expect, it } from 'vitest';
import { parseSearchKinds } from '../../src/directory/search-kinds.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { searchPage, searchPaging } from '../../src/directory/search-page.js';
import { matchTier, rankMatches } from '../../src/directory/search-ranking.js';
import { nameKeys } from '../../src/directory/search-keys.js';
import { InMemoryDirectory } from '../../examples/library-use/in-memory-directory.js';

const user = (name: string, email: string | null = null) => ({ name, email, ...nameKeys(name) });

describe('search rules (domain)', () => {
  it('normalises keywords: NFKC, white space, case, length', () => {
    expect(normaliseKeyword('  ＨＡＮ\tMei  ').text).toBe('han mei');
    expect(normaliseKeyword('a\u0000b').text).toBe('a b');
    expect(normaliseKeyword('梅'.repeat(150)).length).toBe(100);
  });

  it('tiers exact, prefix, substring, pinyin prefix, pinyin piece', () => {
    const k = (text: string) => normaliseKeyword(text);
    expect(matchTier(k('ann'), user('Ann'))).toBe(0);
    expect(matchTier(k('ann'), user('Anna'))).toBe(1);
    expect(matchTier(k('ann'), user('Joanne'))).toBe(2);
    expect(matchTier(k('hmm'), user('韩梅梅'))).toBe(3);
    expect(matchTier(k('meimei'), user('韩梅梅'))).toBe(4);
    expect(matchTier(k('me'), user('韩梅梅'))).toBeNull();
    expect(matchTier(k('kaifa'), user('开发者', 'Kaifa.Lead@example.com'))).toBe(1);
    expect(matchTier(k('example'), user('开发者', 'kaifa@example.com'))).toBeNull();
  });

  it('computes page wrappers at every boundary', () => {
    const paging = searchPaging(2, 5);
    expect(searchPage(paging, 12, ['k', 'l'])).toEqual({ count: 12, page: 2, pageSize: 5, pageCount: 3, results: ['k', 'l'] });
    expect(searchPage(searchPaging(0, 5), 0, [])).toMatchObject({ pageCount: 0 });
    expect(searchPage(searchPaging(0, 5), 10, [])).toMatchObject({ pageCount: 2 });
    expect(searchPaging(undefined, 500)).toEqual({ page: 0, pageSize: 50 });
  });

  it('reads type tokens leniently and ignores unknown ones', () => {
    expect([...parseSearchKinds(' FILE_NAME,department,,x,file_name')]).toEqual(['file_name', 'department']);
    expect(parseSearchKinds('').size).toBe(0);
  });

  it('ranks in-memory lists the same way, keeping the given tie order', () => {
    const names = ['Joanne', 'Anna', '安娜', 'Ann', 'Bob'].map((name) => user(name));
    const found = rankMatches(normaliseKeyword('an'), names, (u) => u, { offset: 0, limit: 10 });
    expect(found.items.map((u) => u.name)).toEqual(['Anna', 'Ann', 'Joanne', '安娜']);
  });

  it('lets the in-memory example directory answer search with the shared rules', async () => {
    const directory = new InMemoryDirectory({
      teams: [{ id: 't', name: 'T' }],
      departments: [{ id: 'd', name: '研发部', teamId: 't', parentId: null }],
      users: [
        { id: 'u1', name: '韩梅梅', email: 'han@example.com', avatar: null, teamId: 't', departmentIds: ['d'] },
        { id: 'u2', name: 'Li Lei', email: 'li@example.com', avatar: null, teamId: 't', departmentIds: ['d'] },
      ],
      files: [
        { id: 'f1', name: '计划', type: 'document', creatorId: 'u1', createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z' },
        { id: 'f2', name: '机密计划', type: 'document', creatorId: 'u2', createdAt: '2024-01-01T00:00:00Z', updatedAt: '2024-01-01T00:00:00Z' },
      ],
    });
    const page = { offset: 0, limit: 10 };
    expect((await directory.searchTeamMembers({ viewerId: 'u2', teamId: 't', keyword: normaliseKeyword('hmm'), page })).items.map((u) => u.id)).toEqual(['u1']);
    const files = await directory.searchReadableFiles({ viewerId: 'u1', keyword: normaliseKeyword('计划'), page });
    expect(files.items.map((f) => f.file.id)).toEqual(['f1']);
    const departments = await directory.searchDepartments({ viewerId: 'u1', teamId: 't', keyword: normaliseKeyword('yanfa'), page });
    expect(departments.items).toEqual([{ id: 'd', name: '研发部', allMemberCount: 2, parentDepartments: [] }]);
  });
});
