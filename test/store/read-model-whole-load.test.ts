import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { sql } from 'kysely';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { compactHeap } from '../../src/composition/compact-heap.js';
import { StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { grantsOf } from '../../src/store/change-feed/read-model/model-rows.js';
import { AnswerNotWanted } from '../../src/shared/one-answer-thread.js';
import { DirectoryModel } from '../../src/directory/read-model/directory-model.js';
import { upsertTeams, upsertUsers } from '../../src/store/directory-writes/directory-writer.js';
import { ACME, seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore, dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';

/**
 * The step after a whole load of the read model (the server compacts the heap there, compact-heap.ts):
 * once after the first load, before the model is ready; again after a reload of everything; never after
 * an ordinary write.
 */
describeEachStore('the step after a whole load of the read model', (store) => {
  it('runs once before the model is ready, again after an import that replaces the directory, not after a write', async () => {
    await upsertTeams(store().db, [{ id: 'acme', name: 'Acme' }]);
    const states: string[] = [];
    const source = new StoreModelSource(store(), { afterWholeLoad: () => states.push(source.state) });
    try {
      await source.loaded;
      expect(states).toEqual(['loading']);
      expect(source.state).toBe('ready');

      await upsertUsers(store().db, [{ id: 'ann', name: 'Ann', email: null, avatar: null, teamId: 'acme', watermark: null, departmentIds: [] }]);
      await source.catchUp();
      expect(source.model.users.get('ann')?.name).toBe('Ann');
      expect(states).toEqual(['loading']);

      const snapshot = { teams: [{ id: 'acme', name: 'Acme' }], departments: [], users: [{ id: 'bob', name: 'Bob', teamId: 'acme' }], files: [] };
      const result = await importSnapshot(directoryChanges(store()), snapshot, { replace: true, allowEmpty: true });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      await source.catchUp();
      expect([...source.model.users.keys()]).toEqual(['bob']);
      expect(states).toEqual(['loading', 'ready']);
    } finally {
      await source.close();
    }
  }, 60_000);
});

/** Every keyword worth trying on the fixture and the generated people: pieces of their names, and misses. */
const KEYWORDS = ['a', 'an', 'li', 'ma', 'zh', 'wang', '王', '梅', 'person 1', 'dana', 'p1', 'x', 'qqq', 'plan', 'sales', 'eng'];

/** What the search reads of each name index of a loaded model, keyword by keyword. */
function indexAnswers(source: StoreModelSource, teamId: string) {
  const { search } = source.model;
  return KEYWORDS.map((text) => {
    const keyword = normaliseKeyword(text);
    return {
      text,
      people: search.peopleOf(teamId).candidates(keyword, 10_000),
      departments: search.departmentsOf(teamId).candidates(keyword, 10_000),
      files: search.fileNames.candidates(keyword, 10_000),
    };
  });
}

describeEachStore('a whole load with its name indexes built in a thread of their own', (store) => {
  it('answers every keyword as indexes built afresh on first use, and as a load that builds them on its own thread', async () => {
    await seedDirectory(store().db);
    const names = ['王小明', 'Dana Ma', '韩梅梅', 'Li Lei', 'Zhang Wei', 'anna'];
    await upsertUsers(
      store().db,
      Array.from({ length: 120 }, (_, number) => ({
        id: `person-${number}`,
        name: `${names[number % names.length]!} ${number}`,
        email: number % 2 === 0 ? `p${number}@example.com` : null,
        avatar: null,
        teamId: ACME.id,
        watermark: null,
        departmentIds: [],
      })),
    );
    const failures: unknown[] = [];
    const threaded = new StoreModelSource(store(), { nameIndexThread: { fromEntries: 0 }, onThreadFailure: (error) => failures.push(error) });
    const here = new StoreModelSource(store(), { nameIndexThread: { fromEntries: Number.POSITIVE_INFINITY } });
    try {
      await Promise.all([threaded.loaded, here.loaded]);
      expect(failures).toEqual([]);
      const answers = indexAnswers(threaded, ACME.id);
      expect(answers).toEqual(indexAnswers(here, ACME.id));
      // The reference: each index forgotten, then built from the model on first use (no load's builds).
      const { search } = here.model;
      for (const names of [search.peopleOf(ACME.id), search.departmentsOf(ACME.id), search.fileNames]) names.forget();
      expect(answers).toEqual(indexAnswers(here, ACME.id));
      // The keywords find something in each index, so the comparison is not of empty lists.
      for (const kind of ['people', 'departments', 'files'] as const)
        expect(
          answers.some((answer) => answer[kind].ids.length > 0),
          kind,
        ).toBe(true);
    } finally {
      await Promise.all([threaded.close(), here.close()]);
    }
  }, 60_000);
});

describeEachStore('a whole load of the grants', (store) => {
  it('holds every grant row as it is, files with many grants and ids a DBA wrote with a line feed included', async () => {
    await seedDirectory(store().db);
    const rows = [
      { file_id: 'plan', principal_kind: 'user', principal_id: 'odd\nid', role_rank: 2 },
      { file_id: 'plan', principal_kind: 'user', principal_id: `long-${'x'.repeat(240)}`, role_rank: 10 },
      ...Array.from({ length: 300 }, (_, number) => ({ file_id: 'sheet', principal_kind: 'user', principal_id: `many-${number}`, role_rank: 1 + (number % 3) })),
      { file_id: 'sheet', principal_kind: 'department', principal_id: 'rd 1:2', role_rank: 3 },
    ];
    await store().db.insertInto('file_grants').values(rows).execute();
    const stored = await store().db.selectFrom('file_grants').select(['file_id', 'principal_kind', 'principal_id', 'role_rank']).execute();
    const expected = new Map<string, Map<string, number>>();
    for (const row of stored) {
      const grants = expected.get(row.file_id) ?? new Map<string, number>();
      grants.set(`${row.principal_kind}:${row.principal_id}`, Number(row.role_rank));
      expected.set(row.file_id, grants);
    }
    // Pages of 2 files: a file's grants never straddle two pages.
    const source = new StoreModelSource(store(), { loadPageRows: 2 });
    try {
      await source.loaded;
      const held = new Map([...source.model.grants].map(([fileId, grants]) => [fileId, new Map(grants.principals.map((principal, index) => [principal, grants.ranks[index]!]))]));
      expect(held).toEqual(expected);
      expect(held.get('sheet')?.size).toBeGreaterThan(300);
      expect(held.get('plan')?.get('user:odd\nid')).toBe(2);
      // Each principal's files, the other way round.
      expect(source.model.filesOfPrincipal.get('department:rd 1:2')).toEqual(new Map([['sheet', 3]]));
    } finally {
      await source.close();
    }
  }, 60_000);
});

describe("a file's grants as the database joins them", () => {
  const model = () => new DirectoryModel();
  it('are read when every line is whole, and refused when one is cut short or the count differs', () => {
    const whole = grantsOf(model(), '2 user:u100\t\n4 department:rd 1:2\t\n1 team:t\t', 3);
    expect(whole).toEqual({ principals: ['user:u100', 'department:rd 1:2', 'team:t'], ranks: [2, 4, 1] });
    // What MySQL's group_concat_max_len leaves of 'u100…': a line cut inside, or at its rank, or empty.
    for (const cut of ['2 user:u100\t\n2 user:u10', '2 user:u100\t\n2', '2 user:u100\t\n']) expect(grantsOf(model(), cut, 2), JSON.stringify(cut)).toBeUndefined();
    expect(grantsOf(model(), '2 user:u100\t\n2 user:u101\t', 3)).toBeUndefined();
    expect(grantsOf(model(), 'x user:u1\t', 1)).toBeUndefined();
  });
});

describeEachStore('a read model closed while it loads', (store) => {
  it('gives the load up at once, its name index thread stopped, without reporting an error', async () => {
    await seedDirectory(store().db);
    const dir = mkdtempSync(join(tmpdir(), 'read-model-close-'));
    const silent = join(dir, 'silent.mjs');
    // A thread that never answers: without the close the load would wait for its 10-minute time-out.
    writeFileSync(silent, "import { parentPort } from 'node:worker_threads';\nparentPort.once('message', () => setInterval(() => {}, 1000));\n");
    const errors: unknown[] = [];
    const source = new StoreModelSource(store(), { nameIndexThread: { fromEntries: 0, thread: pathToFileURL(silent) }, onError: (error) => errors.push(error) });
    try {
      // The rows are read and the thread asked: only the indexes are missing.
      await expect.poll(() => source.model.users.size, { timeout: 30_000, interval: 5 }).toBeGreaterThan(0);
      await source.close();
      await expect(source.loaded).rejects.toBeInstanceOf(AnswerNotWanted);
      expect(source.state).toBe('failed');
      expect(errors).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('a read model whose load fails', () => {
  it('reports it, closed meanwhile or not', async () => {
    const fresh = await freshStore('sqlite');
    const store = await fresh.open();
    try {
      await sql`DROP TABLE file_grants`.execute(store.db);
      for (const closeAtOnce of [false, true]) {
        const errors: unknown[] = [];
        const source = new StoreModelSource(store, { onError: (error) => errors.push(error) });
        if (closeAtOnce) await source.close();
        await expect(source.loaded).rejects.toThrow(/file_grants/);
        expect(errors, `closed: ${closeAtOnce}`).toHaveLength(1);
        await source.close();
      }
    } finally {
      await store.close();
      await fresh.drop();
    }
  });
});

const person = (id: string, name: string) => ({ id, name, email: null, avatar: null, teamId: 'acme', watermark: null, departmentIds: [] });

for (const dialect of dialects) {
  describe(`reads while another process's bulk import is loaded again whole [${dialect}]`, () => {
    it.each([
      { room: true, title: 'answer from the directory as it was until the whole of it is loaded: none sees it half loaded, none waits' },
      { room: false, title: 'wait for the whole of it when the heap has no room for a second model: none sees it half loaded' },
    ])(
      '$title',
      async ({ room }) => {
        const fresh = await freshStore(dialect);
        const serving = await fresh.open();
        const importing = await fresh.open();
        const dir = mkdtempSync(join(tmpdir(), 'read-model-reload-'));
        const silent = join(dir, 'silent.mjs');
        // A name index thread that never answers: each whole load waits its time-out (1.5 s), then builds the
        // indexes here. The reload is then held up for that long after its rows are read.
        writeFileSync(silent, "import { parentPort } from 'node:worker_threads';\nparentPort.once('message', () => setInterval(() => {}, 1000));\n");
        await upsertTeams(importing.db, [{ id: 'acme', name: 'Acme' }]);
        await upsertUsers(
          importing.db,
          Array.from({ length: 40 }, (_, number) => person(`old-${number}`, `Old ${number}`)),
        );
        // Pages of 5 rows: on PostgreSQL and MySQL the reload is many round trips, reads run between them.
        const source = new StoreModelSource(serving, {
          loadPageRows: 5,
          nameIndexThread: { fromEntries: 0, thread: pathToFileURL(silent), timeoutMs: 1_500 },
          reloadAside: () => room,
        });
        try {
          await source.loaded;
          expect(source.model.users.size).toBe(40);
          const snapshot = {
            teams: [{ id: 'acme', name: 'Acme' }],
            departments: [],
            users: Array.from({ length: 60 }, (_, number) => ({ id: `new-${number}`, name: `New ${number}`, teamId: 'acme' })),
            files: [],
          };
          const result = await importSnapshot(directoryChanges(importing), snapshot, { replace: true, allowEmpty: true });
          expect(result.ok, JSON.stringify(result)).toBe(true);

          // What reads see, turn after turn, while the serving process loads the directory again.
          const reload = source.catchUp();
          let reloading = true;
          void reload.finally(() => (reloading = false));
          const seen = new Set<string>();
          let answeredMeanwhile = 0;
          let ownWrite: string | undefined;
          while (reloading) {
            await source.current();
            const ids = [...source.model.users.keys()];
            seen.add(`${ids.length} ${ids.filter((id) => id.startsWith('new-')).length}`);
            if (reloading) answeredMeanwhile += 1;
            // Reads went on while the reload waited for its indexes (1.5 s); a read that waited for the whole
            // reload would have left a handful of turns at most (those before the feed's read said "all").
            // Then the serving process writes a person itself: its next read must show it.
            if (answeredMeanwhile === 100 && ownWrite === undefined) {
              ownWrite = reloading ? 'during the reload' : 'after it';
              await upsertUsers(serving.db, [person('own-1', 'Own')]);
              await source.current();
              expect(source.model.users.has('own-1'), ownWrite).toBe(true);
            }
            await new Promise((resolve) => setImmediate(resolve));
          }
          await reload;
          // Only the whole directory before (40 old people) or after (60 new, then the own write): nothing in between.
          expect(
            [...seen].every((state) => state === '40 0' || state === '60 60' || state === '61 60'),
            [...seen].join(', '),
          ).toBe(true);
          if (room) {
            expect(ownWrite).toBe('during the reload');
            expect(seen.has('40 0')).toBe(true);
            expect(source.model.users.size).toBe(61);
          } else {
            // Cleared and filled again in place, pages of 5 rows: reads waited for the whole (the states above).
            expect(source.model.users.size).toBe(ownWrite === undefined ? 60 : 61);
          }
        } finally {
          await source.close();
          await Promise.all([serving.close(), importing.close()]);
          await fresh.drop();
          rmSync(dir, { recursive: true, force: true });
        }
      },
      60_000,
    );
  });
}

describe('compactHeap', () => {
  it('gives back the garbage left behind and keeps what is live', () => {
    const live = Array.from({ length: 10_000 }, (_, index) => ({ id: `live-${index}` }));
    let garbage: unknown[] | undefined = Array.from({ length: 300_000 }, (_, index) => ({ id: `garbage-${index}`, list: [index] }));
    expect(garbage.length).toBe(300_000);
    garbage = undefined;
    const compaction = compactHeap();
    expect(compaction.heapUsedAfter).toBeLessThan(compaction.heapUsedBefore - 10_000_000);
    expect(compaction.heapTotalAfter).toBeGreaterThanOrEqual(compaction.heapUsedAfter);
    expect(live[9_999]!.id).toBe('live-9999');
    // A second call works the same (gc is taken once).
    expect(compactHeap().ms).toBeGreaterThanOrEqual(0);
  });
});
