import { beforeAll, expect, it } from 'vitest';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { FILES, GRANTS, USERS, seedDirectory } from '../helpers/directory-fixture.js';
import { expectedGrantedRole } from './permission-oracle.js';
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

describeEachStore('SqlDirectory grants, by the permission rules', (store) => {
  it('give every user the role the rules give them on every file', async () => {
    await seedDirectory(store().db);
    // The store's own reads: prepared statements where the store has them (PostgreSQL, SQLite files).
    const directory = SqlDirectory.over(store());
    const files = new Map((await Promise.all(FILES.map((file) => directory.getFile(file.id)))).map((file) => [file!.id, file]));
    for (const file of [...FILES.map((f) => f.id), 'nofile']) {
      for (const user of [...USERS.map((u) => u.id), 'nobody']) {
        const expected = expectedGrantedRole(file, user);
        expect(await directory.getGrantedRole(file, user), `${file} ${user}`).toBe(expected);
        const seen = await directory.getFileForViewer(file, user);
        expect(seen, `${file} ${user}`).toEqual(files.has(file) ? { file: files.get(file), grantedRole: expected } : undefined);
      }
    }
    // The fixture reaches a role through each kind of principal, a department's ancestor included.
    expect(GRANTS.map((g) => g.principalKind).sort()).toEqual(expect.arrayContaining(['department', 'team', 'user']));
    expect([expectedGrantedRole('plan', 'wang'), expectedGrantedRole('teamdoc', 'alice'), expectedGrantedRole('plan', 'alice')]).toEqual(['viewer', 'viewer', null]);
  });
});
