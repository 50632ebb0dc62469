import { beforeAll, expect, it } from 'vitest';
import { SqlDirectory } from '../../src/store/sql-directory.js';
import { FILES, USERS, seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';

describeEachStore('SqlDirectory', (store) => {
  let directory: SqlDirectory;
  beforeAll(async () => {
    await seedDirectory(store().db);
    directory = new SqlDirectory(store().db);
  });

  it('resolves the strongest grant through user, department ancestors and team', async () => {
    expect(await directory.getGrantedRole('plan', 'lilei')).toBe('editor');
    expect(await directory.getGrantedRole('plan', 'wang')).toBe('viewer'); // web -> fe -> rd
    expect(await directory.getGrantedRole('plan', 'alice')).toBeNull();
    expect(await directory.getGrantedRole('teamdoc', 'alice')).toBe('viewer');
    expect(await directory.getGrantedRole('teamdoc', 'olga')).toBeNull();
    expect(await directory.getGrantedRole('sheet', 'bob')).toBe('manager');
  });

  it('counts distinct members over a subtree', async () => {
    // rd: zhang, lilei (twice), hanmeimei, wang
    expect(await directory.countAllDepartmentMembers('rd')).toBe(4);
    expect(await directory.countAllDepartmentMembers('web')).toBe(1);
  });

  it('lists the readable files of a user, newest first', async () => {
    const files = await directory.listReadableFiles('wang', { limit: 10, orderBy: 'updated_at' });
    expect(files.map((f) => f.file.id)).toEqual(['plan', 'sheet', 'teamdoc', 'locked']);
  });

  it('gives one department path per department, top-down', async () => {
    const paths = await directory.listDepartmentPaths('lilei');
    expect(paths).toEqual([
      [
        { id: 'rd', name: '研发部' },
        { id: 'be', name: '后端组' },
      ],
      [
        { id: 'rd', name: '研发部' },
        { id: 'fe', name: '前端组' },
      ],
    ]);
  });
});

describeEachStore('SqlDirectory prepared hot reads', (store) => {
  it('agree with the Kysely path on every user, file and grant', async () => {
    await seedDirectory(store().db);
    const hot = SqlDirectory.over(store());
    const plain = new SqlDirectory(store().db);
    for (const user of [...USERS.map((u) => u.id), 'nobody']) expect(await hot.getUser(user)).toEqual(await plain.getUser(user));
    for (const file of [...FILES.map((f) => f.id), 'nofile']) {
      for (const user of USERS.map((u) => u.id)) {
        expect(await hot.getGrantedRole(file, user), `${file} ${user}`).toBe(await plain.getGrantedRole(file, user));
        expect(await hot.getFileForViewer(file, user), `${file} ${user}`).toEqual(await plain.getFileForViewer(file, user));
      }
    }
    expect((await hot.getFileForViewer('plan', 'wang'))?.grantedRole).toBe('viewer');
  });
});
