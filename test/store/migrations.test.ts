import { expect, it } from 'vitest';
import { rebuildDepartmentClosure, upsertDepartments, upsertTeams } from '../../src/store/directory-writer.js';
import { SqlDirectory } from '../../src/store/sql-directory.js';
import { describeEachStore } from '../helpers/stores.js';

describeEachStore('store', (store) => {
  it('applies the migrations and keeps the department closure', async () => {
    const { db } = store();
    await upsertTeams(db, [{ id: 't1', name: 'Acme' }]);
    await upsertDepartments(db, [
      { id: 'd1', name: '研发部', teamId: 't1', parentId: null },
      { id: 'd2', name: '前端组', teamId: 't1', parentId: 'd1' },
      { id: 'd3', name: 'Web', teamId: 't1', parentId: 'd2' },
    ]);
    await rebuildDepartmentClosure(db);
    const directory = new SqlDirectory(db);
    expect(await directory.listDepartmentAncestors('d3')).toEqual([
      { id: 'd1', name: '研发部' },
      { id: 'd2', name: '前端组' },
    ]);
    expect(await directory.listChildDepartments('t1', null)).toEqual([{ id: 'd1', name: '研发部', allMemberCount: 0 }]);
  });
});

