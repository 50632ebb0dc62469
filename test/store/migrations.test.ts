import { expect, it } from 'vitest';
import { DatabaseTooNewError } from '../../src/store/schema/migration-runner.js';
import { freshStore, markMigratedByNewerVersion } from '../ops/fresh-store.js';
import { rebuildDepartmentClosure, upsertDepartments, upsertTeams } from '../../src/store/directory-writes/directory-writer.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
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

describeEachStore('migrations', (_store, dialect) => {
  it('run from an empty database: all pending, then all applied in order, then nothing left to do', async () => {
    const fresh = await freshStore(dialect);
    const store = await fresh.open({ migrate: false });
    try {
      const before = await store.migrations.status();
      expect(before.applied).toEqual([]);
      expect(before.unknown).toEqual([]);
      expect(before.pending[0]).toBe('001-directory');
      expect(before.pending).toEqual([...before.pending].sort());
      expect(await store.migrations.migrateToLatest()).toEqual(before.pending);
      const after = await store.migrations.status();
      expect(after.pending).toEqual([]);
      expect(after.applied.map((m) => m.name)).toEqual(before.pending);
      expect(await store.migrations.migrateToLatest()).toEqual([]);
      // The tables are there and usable.
      await upsertTeams(store.db, [{ id: 't1', name: 'Acme' }]);
    } finally {
      await store.close();
      await fresh.drop();
    }
  });

  it('a database migrated by a newer version is refused at open, with the unknown migration named', async () => {
    const fresh = await freshStore(dialect);
    const store = await fresh.open();
    await markMigratedByNewerVersion(store);
    await store.close();
    try {
      for (const options of [{}, { migrate: false }]) {
        const refusal = await fresh.open(options).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refusal).toBeInstanceOf(DatabaseTooNewError);
        expect((refusal as Error).message).toMatch(/^the database was migrated by a newer version of collab-host: migration 099-from-a-newer-version unknown to this version/);
      }
      const listing = await fresh.open({ migrate: false, allowNewer: true });
      expect((await listing.migrations.status()).unknown).toEqual(['099-from-a-newer-version']);
      await expect(listing.migrations.migrateToLatest()).rejects.toBeInstanceOf(DatabaseTooNewError);
      await listing.close();
    } finally {
      await fresh.drop();
    }
  });
});
