import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/database.js';
import { upsertFiles } from '../../src/store/directory-writer.js';
import { SqlDirectory } from '../../src/store/sql-directory.js';
import { FILES, GRANTS, USERS, seedDirectory } from '../helpers/directory-fixture.js';

/**
 * On an SQLite file the hottest lookups take a read-only connection of their own (SqliteHotReads);
 * they must agree with the Kysely path of the same directory on every user, file and grant.
 */
describe('SQLite hot reads (file-backed store)', () => {
  let work: string;
  let store: OpenDatabase;
  let hot: SqlDirectory;
  let plain: SqlDirectory;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'collab-hot-'));
    store = await openDatabase(`sqlite:${join(work, 'store.db')}`);
    await seedDirectory(store.db);
    hot = SqlDirectory.over(store);
    plain = new SqlDirectory(store.db);
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

  it('gives the same users, files and roles as the Kysely path', async () => {
    for (const user of [...USERS.map((u) => u.id), 'nobody']) {
      expect(await hot.getUser(user)).toEqual(await plain.getUser(user));
    }
    for (const file of [...FILES.map((f) => f.id), 'nofile']) {
      expect(await hot.getFile(file)).toEqual(await plain.getFile(file));
      for (const user of USERS.map((u) => u.id)) {
        const role = await plain.getGrantedRole(file, user);
        expect(await hot.getGrantedRole(file, user), `${file} ${user}`).toBe(role);
        const expected = (await plain.getFile(file)) && { file: await plain.getFile(file), grantedRole: role };
        expect(await hot.getFileForViewer(file, user), `${file} ${user}`).toEqual(expected);
        expect(await plain.getFileForViewer(file, user), `${file} ${user}`).toEqual(expected);
      }
    }
    // The fixture reaches every kind of grant: direct, department ancestor, team.
    expect(GRANTS.map((g) => g.principalKind).sort()).toEqual(expect.arrayContaining(['department', 'team', 'user']));
    expect(await hot.getGrantedRole('plan', 'wang')).toBe('viewer');
    expect(await hot.getGrantedRole('teamdoc', 'alice')).toBe('viewer');
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
