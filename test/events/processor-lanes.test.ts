import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryService } from '../../src/directory/directory-service.js';
import { EventProcessor } from '../../src/events/event-processor.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
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
      // Each lane's transaction reads the clock once: the events it finished share their effects time.
      let clock = 1_709_280_000_000;
      const processor = new EventProcessor(store.db, new DirectoryService(SqlDirectory.over(store), { watermarkTemplate: [] }), {
        receivers: [],
        maxFanout: 100,
        batchSize: BATCH,
        lanes: LANES,
        now: () => (clock += 1_000),
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
      /** The effects times of the events processed since `after` (by id), one per lane transaction. */
      const transactionsAfter = async (after: number) => {
        const rows = await store.db.selectFrom('events').select(['id', 'effects_ms']).where('outcome', '=', 'processed').where('id', '>', after).execute();
        return new Set(rows.map((row) => Number(row.effects_ms))).size;
      };
      const lastId = async () =>
        Number(
          (
            await store.db
              .selectFrom('events')
              .select(({ fn }) => fn.max('id').as('id'))
              .executeTakeFirstOrThrow()
          ).id ?? 0,
        );
      try {
        // A backlog of four files' events, four each: the first step, knowing of none, takes one lane's batch.
        await post(FILES.flatMap((fileId) => [fileId, fileId, fileId, fileId]));
        expect(await processor.runOnce()).toBe(BATCH);
        expect(await transactionsAfter(0)).toBe(1);
        // That lane was full: the next step runs every lane, so more than one batch in more than one transaction.
        const before = clock;
        const widened = await processor.runOnce();
        expect(widened).toBeGreaterThan(BATCH);
        expect(clock - before).toBeGreaterThan(1_000);
        while ((await pending()) > 0) await processor.runOnce();

        // Once no lane came back full, a step is one lane again: four new events, one batch, one transaction.
        const seen = await lastId();
        await processor.runOnce(); // finds nothing: the backlog is over
        await post(FILES);
        expect(await processor.runOnce()).toBe(BATCH);
        expect(await transactionsAfter(seen)).toBe(1);
        expect(await pending()).toBe(1);
      } finally {
        await app.close();
      }
    });
  });
