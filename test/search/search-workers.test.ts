import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/database.js';
import { upsertUsers } from '../../src/store/directory-writer.js';
import { SqlDirectory } from '../../src/store/sql-directory.js';
import { USERS } from '../helpers/directory-fixture.js';
import { asUser, buildTestApp } from '../helpers/app.js';
import { ALL_KINDS, ids, search } from './search-http.js';
import { addActivity, seedSearchCompany } from './search-fixture.js';

/**
 * An SQLite file opened with search workers answers POST /search from worker threads (each with its own
 * read connection and caches): the same bodies as searching on the main thread, writes seen at once,
 * and a worker that dies replaced without the service noticing more than the batch it was running.
 */
describe('search on worker threads (SQLite file)', () => {
  let work: string;
  let store: OpenDatabase;
  let viaWorkers: FastifyInstance;
  let inThread: FastifyInstance;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'collab-workers-'));
    store = await openDatabase(`sqlite:${join(work, 'store.db')}`, { searchWorkers: 2 });
    await seedSearchCompany(store.db);
    await addActivity(store.db, { userId: 'hanmeimei', kind: 'mention', relatedUserId: 'bob', fileId: 'sheet', occurredAt: '2024-05-01T09:00:00Z' });
    viaWorkers = await buildTestApp(store);
    inThread = await buildTestApp(store, {}, { directory: new SqlDirectory(store.db) });
  });
  afterAll(async () => {
    await viaWorkers.close();
    await inThread.close();
    await store.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('has workers only when asked, for SQLite files', async () => {
    expect(store.searchWorkers?.size).toBe(2);
    const memory = await openDatabase('sqlite::memory:', { searchWorkers: 2 });
    expect(memory.searchWorkers).toBeUndefined();
    await memory.close();
  });

  it('gives the same results as searching on the main thread', async () => {
    for (const viewer of ['zhang', 'hanmeimei', 'alice', 'outsider']) {
      for (const keyword of ['', 'a', '周报', 'hmm', 'tester', '娜']) {
        const body = { type: ALL_KINDS, keyword, fileId: 'sheet', pageSize: 4 };
        // Several at once: each worker gets some of them.
        const [a, b] = await Promise.all([search(viaWorkers, viewer, body), search(inThread, viewer, body)]);
        expect(a, `${viewer} ${keyword}`).toEqual(b);
      }
    }
  });

  it('sees a write committed on the main connection at the next search', async () => {
    const find = async () => ids((await search(viaWorkers, 'zhang', { type: 'team_member', keyword: '韩' })).teamMembers);
    expect(await find()).toEqual(['hanmeimei']);
    await upsertUsers(store.db, [{ ...USERS.find((user) => user.id === 'hanmeimei')!, name: '梅露' }]);
    expect(await find()).toEqual([]);
  });

  it('replaces a worker that dies, failing only the searches it was running', async () => {
    const threads = (store.searchWorkers as unknown as { slots: Array<{ worker: Worker }> }).slots.map((slot) => slot.worker);
    await Promise.all(threads.map((worker) => worker.terminate()));
    // Both died: a search is answered by their replacements.
    const response = await viaWorkers.inject({ method: 'POST', url: '/search', headers: asUser('zhang'), payload: { type: 'team_member', keyword: 'bob' } });
    expect(response.statusCode).toBe(200);
    expect(ids(response.json().teamMembers)).toEqual(['bob']);
  });
});
