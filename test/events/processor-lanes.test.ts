import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DirectoryService } from '../../src/directory/directory-service.js';
import { EventProcessor } from '../../src/events/event-processor.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { eventLog } from '../../src/store/events/event-log.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';
import { buildEventApp, fileContent, postEvent, signedHeaders } from './event-fixtures.js';

const FILES = ['plan', 'sheet', 'secret', 'locked'];
const BATCH = 3;
const LANES = 4;

/**
 * The processor's lanes (PostgreSQL and MySQL; SQLite has one): a step takes its events in one lane (one
 * claim, one transaction) unless the last step found a lane's batch full, a backlog, when it runs every
 * lane side by side; once no lane comes back full it goes back to one.
 */
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(dialects.includes(dialect))(`the event processor's lanes [${dialect}]`, () => {
    let store: OpenDatabase;
    let drop: () => Promise<void>;

    beforeAll(async () => {
      const fresh = await freshStore(dialect);
      drop = fresh.drop;
      store = await fresh.open({ poolSize: 6 });
      await seedDirectory(store.db);
    });
    afterAll(async () => {
      await store.close();
      await drop();
    });

    it('one lane for what a batch holds, every lane while events wait beyond it, one again after', async () => {
      const { app } = await buildEventApp(store);
      const processor = new EventProcessor(store.db, new DirectoryService(SqlDirectory.over(store), { watermarkTemplate: [] }), {
        receivers: [],
        maxFanout: 100,
        batchSize: BATCH,
        lanes: LANES,
      });
      let version = 0;
      const post = async (fileIds: readonly string[]) => {
        for (const fileId of fileIds) {
          version += 1;
          const body = JSON.stringify(fileContent(fileId, 'zhang', version, 1_709_280_000_000 + version));
          expect((await postEvent(app, 'FileContent', body, signedHeaders(fileId))).statusCode).toBe(200);
        }
      };
      const pending = async () =>
        Number(
          (
            await store.db
              .selectFrom('events')
              .select(({ fn }) => fn.countAll<number>().as('n'))
              .where('outcome', '=', 'pending')
              .executeTakeFirstOrThrow()
          ).n,
        );
      // The lanes each step reads the log in (each read is a lane's claim, in a transaction of its own).
      const reads = vi.spyOn(eventLog, 'pending');
      /** One step: the events it finished, the lanes it ran ("index/of"), and whether a lane's read came back full. */
      const step = async () => {
        reads.mockClear();
        const finished = await processor.runOnce();
        const read = await Promise.all(reads.mock.results.map((result) => result.value as Promise<unknown[]>));
        return { finished, lanes: reads.mock.calls.map(([, , lane]) => `${lane!.index}/${lane!.of}`), full: read.some((rows) => rows.length >= BATCH) };
      };
      const ONE = ['0/1'];
      const EVERY = ['0/4', '1/4', '2/4', '3/4'];
      try {
        // A backlog of four files' events, four each: the first step, knowing of none, takes one lane's batch.
        await post(FILES.flatMap((fileId) => [fileId, fileId, fileId, fileId]));
        let previous = await step();
        expect(previous).toEqual({ finished: BATCH, lanes: ONE, full: true });
        // Each step after: every lane if a lane of the one before came back full, else one.
        for (let steps = 0; steps < 20; steps += 1) {
          const next = await step();
          expect(next.lanes).toEqual(previous.full ? EVERY : ONE);
          previous = next;
          if (next.finished === 0 && !next.full && (await pending()) === 0) break;
        }
        expect(await pending()).toBe(0);

        // With nothing waiting beyond a batch, a step is one lane: four new events, one lane's batch.
        await post(FILES);
        expect(await step()).toEqual({ finished: BATCH, lanes: ONE, full: true });
        expect(await pending()).toBe(1);
      } finally {
        reads.mockRestore();
        await app.close();
      }
    });
  });
