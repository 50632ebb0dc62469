import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { upsertFiles } from '../../src/store/directory-writes/directory-writer.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { FILES, GRANTS, USERS, seedDirectory } from '../helpers/directory-fixture.js';
import { expectedGrantedRole } from './permission-oracle.js';

/**
 * On an SQLite file the reads of every request take a read-only connection of their own
 * (store/sqlite/prepared-reads.ts): users, files and roles as the rules give them, and only committed data.
 */
describe('SQLite hot reads (file-backed store)', () => {
  let work: string;
  let store: OpenDatabase;
  let hot: SqlDirectory;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'collab-hot-'));
    store = await openDatabase(`sqlite:${join(work, 'store.db')}`);
    await seedDirectory(store.db);
    hot = SqlDirectory.over(store);
  });
  afterAll(async () => {
    await store.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('has a read connection only for SQLite files', async () => {
    expect(store.sqliteReader).toBeDefined();
    const memory = await openDatabase('sqlite::memory:');
    expect(memory.sqliteReader).toBeUndefined();
    await memory.close();
  });

  it('reads users, files and the roles the permission rules give', async () => {
    for (const user of USERS) {
      expect(await hot.getUser(user.id)).toMatchObject({ id: user.id, name: user.name, teamId: user.teamId, active: true });
    }
    expect(await hot.getUser('nobody')).toBeUndefined();
    for (const file of FILES) {
      expect(await hot.getFile(file.id)).toMatchObject({ id: file.id, name: file.name, creatorId: file.creatorId, status: 'active' });
      for (const user of USERS.map((u) => u.id)) {
        const role = expectedGrantedRole(file.id, user);
        expect(await hot.getGrantedRole(file.id, user), `${file.id} ${user}`).toBe(role);
        expect(await hot.getFileForViewer(file.id, user), `${file.id} ${user}`).toEqual({ file: await hot.getFile(file.id), grantedRole: role });
      }
    }
    expect(await hot.getFileForViewer('nofile', 'zhang')).toBeUndefined();
    expect(GRANTS.map((g) => g.principalKind).sort()).toEqual(expect.arrayContaining(['department', 'team', 'user']));
  });

  it('sees a write as soon as it is committed, and not before', async () => {
    const renamed = { ...FILES[0]!, name: '新名字' };
    await store.db.transaction().execute(async (trx) => {
      await upsertFiles(trx, [renamed]);
      expect((await hot.getFileForViewer(renamed.id, 'zhang'))?.file.name).toBe(FILES[0]!.name);
    });
    expect((await hot.getFileForViewer(renamed.id, 'zhang'))?.file.name).toBe('新名字');
  });
});
