import { afterAll, beforeAll, expect, it } from 'vitest';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { upsertDepartments, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { USERS } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { seedSearchCompany } from './search-fixture.js';

describeEachStore('search follows writes', (store) => {
  let source: StoreModelSource;
  let directory: ModelDirectory;
  const find = async (keyword: string) =>
    (await directory.searchTeamMembers({ viewerId: 'zhang', teamId: 'acme', keyword: normaliseKeyword(keyword), page: { offset: 0, limit: 50 } })).items.map((u) => u.id);

  beforeAll(async () => {
    await seedSearchCompany(store().db);
    source = new StoreModelSource(store());
    directory = new ModelDirectory(source, new SqlDirectory(store().db));
  });
  afterAll(() => source.close());

  it('survives re-upserting unchanged rows (a snapshot imported twice)', async () => {
    await upsertUsers(store().db, USERS);
    await upsertDepartments(store().db, [{ id: 'cq', name: '重庆分部', teamId: 'acme', parentId: null }]);
    expect(await find('zs')).toEqual(['zhang']);
    expect(await find('张三')).toEqual(['zhang']);
  });

  it('finds a renamed user by the new name only, on both index paths', async () => {
    const hanmeimei = USERS.find((u) => u.id === 'hanmeimei')!;
    await upsertUsers(store().db, [{ ...hanmeimei, name: '韩露', email: 'lu.han@example.com' }]);
    expect(await find('梅梅')).toEqual([]);
    expect(await find('meimei')).toEqual([]);
    expect(await find('韩露')).toEqual(['hanmeimei']);
    expect(await find('hanlu')).toEqual(['hanmeimei']);
    expect(await find('lu.han')).toEqual(['hanmeimei']);
  });

  it('forgets a deleted user', async () => {
    await store().db.deleteFrom('users').where('id', '=', 'dev').execute();
    expect(await find('开发')).toEqual([]);
    expect(await find('开发者')).toEqual([]);
  });
});
