import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelDirectory } from '../../src/directory/read-model/model-directory.js';
import { MODEL_SEARCH_BOUNDS } from '../../src/directory/read-model/model-search.js';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { replaceGrants, upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { rawSession } from '../helpers/raw-session.js';
import { describeEachStore, dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';
import { expectModelEqualsReference, expectSearchEqualsReference, KEYWORDS, random, randomWrite } from './read-model-checks.js';

describeEachStore('the read model, after random directory writes', (store) => {
  let source: StoreModelSource;
  beforeAll(() => {
    source = new StoreModelSource(store());
  });
  afterAll(() => source.close());

  it('answers every read as a brute-force reference computes it from the rows', async () => {
    const directory = new ModelDirectory(source, new SqlDirectory(store().db));
    // Every user here may read few files; this one takes the path of users who may read many.
    const walking = new ModelDirectory(source, new SqlDirectory(store().db), { ...MODEL_SEARCH_BOUNDS, readableScan: 0 });
    for (const seed of [1, 2, 3]) {
      const rng = random(seed);
      for (let step = 0; step < 25; step += 1) {
        const writes = [];
        for (let count = 1 + Math.floor(rng.next() * 3); count > 0; count -= 1) writes.push(await randomWrite(store(), rng));
        await expectModelEqualsReference(store(), directory, `seed ${seed} step ${step} (${writes.join(', ')})`);
        // Searches every few steps (each compares some hundreds of answers): the writes between pile up.
        if (step % 4 === 3) {
          const keywords = ['', ...rng.some(KEYWORDS, 3)];
          await expectSearchEqualsReference(store(), directory, `seed ${seed} step ${step} (${writes.join(', ')})`, keywords);
          await expectSearchEqualsReference(store(), walking, `walking: seed ${seed} step ${step} (${writes.join(', ')})`, keywords);
        }
      }
    }
  }, 240_000);

  it('after an import that replaces the directory (the feed says "reload" once), answers as the reference; later writes still follow', async () => {
    const directory = new ModelDirectory(source, new SqlDirectory(store().db));
    const rng = random(7);
    for (let count = 0; count < 10; count += 1) await randomWrite(store(), rng);
    await expectModelEqualsReference(store(), directory, 'before the import');
    const file = (id: string, name: string, sharing: unknown[]) => ({
      id,
      name,
      type: 'document',
      creatorId: 'u2',
      teamId: 't2',
      createdAt: '2026-03-01T00:00:00Z',
      updatedAt: '2026-03-02T00:00:00Z',
      sharing,
    });
    const snapshot = {
      teams: [{ id: 't2', name: 'Zed' }],
      departments: [
        { id: 'd2', name: '张三', teamId: 't2', parentId: null },
        { id: 'd5', name: 'Bob', teamId: 't2', parentId: 'd2' },
      ],
      users: [
        { id: 'u2', name: 'Ann', teamId: 't2', departmentIds: ['d5'] },
        { id: 'u5', name: '张三', teamId: 't2', departmentIds: ['d2', 'd5'], active: false },
        { id: 'u7', name: 'Zed', teamId: 't2' },
      ],
      files: [
        file('f1', 'Plan', [
          { principal: 'user:u7', role: 'editor' },
          { principal: 'department:d2', role: 'viewer' },
        ]),
        file('f4', '计划', [{ principal: 'team:t2', role: 'commenter' }]),
      ],
    };
    const versions = () => store().db.selectFrom('directory_versions').select(['id', 'version']).orderBy('id').execute();
    const before = await versions();
    const result = await importSnapshot(directoryChanges(store()), snapshot, { replace: true, allowEmpty: true });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    const feed = await store().db.selectFrom('directory_changes').select(['subject', 'key']).execute();
    expect(feed).toEqual([{ subject: 'all', key: '' }]);
    // Every directory area's version moved (the caches keyed on them start afresh).
    const after = await versions();
    expect(after.map((row) => row.id)).toEqual(before.map((row) => row.id));
    after.forEach((row, index) => expect(Number(row.version)).toBeGreaterThan(Number(before[index]!.version)));
    await expectModelEqualsReference(store(), directory, 'after the import');
    expect(await directory.getUser('u1')).toBeUndefined();
    expect(await directory.getGrantedRole('f1', 'u7')).toBe('editor');
    for (let count = 0; count < 10; count += 1) {
      const write = await randomWrite(store(), rng);
      await expectModelEqualsReference(store(), directory, `after the import, then ${write}`);
    }
    expect((await store().db.selectFrom('directory_changes').select('subject').execute()).length).toBeGreaterThan(1);
  }, 120_000);

  it('a model loaded afresh from the same rows answers the same', async () => {
    const fresh = new StoreModelSource(store());
    const directory = new ModelDirectory(fresh, new SqlDirectory(store().db));
    await expectModelEqualsReference(store(), directory, 'fresh load');
    await expectSearchEqualsReference(store(), directory, 'fresh load', KEYWORDS);
    fresh.close();
  }, 60_000);

  it("a model loaded two rows per query (every page edge crossed, a file's grants split over pages) answers the same", async () => {
    const paged = new StoreModelSource(store(), { loadPageRows: 2 });
    const directory = new ModelDirectory(paged, new SqlDirectory(store().db));
    await expectModelEqualsReference(store(), directory, 'paged load');
    await expectSearchEqualsReference(store(), directory, 'paged load', KEYWORDS);
    paged.close();
  }, 60_000);
});

// Two instances on one database: PostgreSQL and MySQL (SQLite has one writing process, docs/scaling.md).
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(dialects.includes(dialect))(`the read model on two instances [${dialect}]`, () => {
    it('a write on one instance is seen by the other at its next catch-up; one made while the model loads is not missed; a restart rebuilds it', async () => {
      const store = await freshStore(dialect);
      const drop = store.drop;
      const first = await store.open();
      const second = await store.open();
      const writer = await rawSession(dialect, store.url);
      const sources: StoreModelSource[] = [];
      try {
        await upsertTeams(first.db, [{ id: 't1', name: 'Acme' }]);
        // A write in flight while the second instance loads: it commits after the load's snapshot.
        await writer.query('BEGIN');
        await writer.query(`INSERT INTO teams (id, name) VALUES ('t2', 'Late')`);
        const onSecond = new StoreModelSource(second);
        sources.push(onSecond);
        await onSecond.loaded;
        expect(onSecond.model.teams.has('t2')).toBe(false);
        await writer.query('COMMIT');
        await onSecond.catchUp();
        expect(onSecond.model.teams.get('t2')).toEqual({ id: 't2', name: 'Late' });

        // A write through the first instance: the second sees it at its next read of the feed.
        const onFirst = new StoreModelSource(first);
        sources.push(onFirst);
        const firstDirectory = new ModelDirectory(onFirst, new SqlDirectory(first.db));
        await upsertUsers(first.db, [{ id: 'u1', name: 'Ann', email: null, avatar: null, teamId: 't1', watermark: null, departmentIds: [] }]);
        expect((await firstDirectory.getUser('u1'))?.name).toBe('Ann');
        const secondDirectory = new ModelDirectory(onSecond, new SqlDirectory(second.db));
        // The second instance wrote nothing: without a catch-up (its poll) it still answers from before.
        expect(await secondDirectory.getUser('u1')).toBeUndefined();
        await onSecond.catchUp();
        expect((await secondDirectory.getUser('u1'))?.name).toBe('Ann');

        // A DBA's TRUNCATE: the feed says `all`, and the model is loaded again.
        await replaceGrants(first.db, ['f1'], [{ fileId: 'f1', principalKind: 'user', principalId: 'u1', role: 'editor' }]);
        await onSecond.catchUp();
        expect(onSecond.model.grants.has('f1')).toBe(true);
        // MySQL fires no trigger on TRUNCATE (docs/operations.md): there a DBA empties the table with DELETE.
        await writer.query(dialect === 'mysql' ? 'DELETE FROM file_grants' : 'TRUNCATE file_grants');
        await onSecond.catchUp();
        expect(onSecond.model.grants.size).toBe(0);

        // Polling: the second instance follows on its own.
        const polling = new StoreModelSource(second, { pollMs: 20 });
        sources.push(polling);
        await polling.loaded;
        await upsertTeams(first.db, [{ id: 't3', name: 'Polled' }]);
        await vi.waitFor(() => expect(polling.model.teams.get('t3')?.name).toBe('Polled'), { timeout: 5000, interval: 20 });

        // A restart: a new model on the same store holds everything.
        const restarted = new StoreModelSource(second);
        sources.push(restarted);
        await restarted.loaded;
        expect([...restarted.model.teams.keys()].sort()).toEqual(['t1', 't2', 't3']);
        expect(restarted.model.users.get('u1')?.name).toBe('Ann');
      } finally {
        for (const source of sources) source.close();
        await writer.end();
        await first.close();
        await second.close();
        await drop();
      }
    }, 60_000);
  });
