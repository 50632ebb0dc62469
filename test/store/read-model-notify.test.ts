import { describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { upsertTeams } from '../../src/store/directory-writes/directory-writer.js';
import { READ_MODEL_POLL_MS, StoreModelSource } from '../../src/store/change-feed/read-model/store-model-source.js';
import { createTestSchema, mysqlUrl, postgresUrl } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';

/** Polls `condition` (every few milliseconds, no fixed sleep) until it holds or `withinMs` passes; returns the time taken. */
async function timeUntil(condition: () => boolean, withinMs: number): Promise<number> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return performance.now() - started;
}

/** The middle one of `times`: the typical wake-up, which one stall of a loaded machine does not move. */
const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)]!;

/**
 * With the poll an hour away, a write through one store (`open` gives two instances on one database) is not
 * in the other's model (LISTEN asked for or not) until that model reads the feed.
 */
async function expectUnseenUntilCatchUp(open: () => Promise<OpenDatabase>, listen: boolean, drop: () => Promise<void>): Promise<void> {
  const writer = await open();
  const reader = await open();
  const source = new StoreModelSource(reader, { pollMs: 3_600_000, listen });
  try {
    await source.loaded;
    await upsertTeams(writer.db, [{ id: 'quiet', name: 'Quiet' }]);
    await expect(timeUntil(() => source.model.teams.has('quiet'), 500)).rejects.toThrow('not within');
    await source.catchUp();
    expect(source.model.teams.has('quiet')).toBe(true);
  } finally {
    await source.close();
    await writer.close();
    await reader.close();
    await drop();
  }
}

/**
 * Issue 21 item 1: on PostgreSQL another instance's directory write wakes the read model through the
 * feed's NOTIFY (migration 110) and its LISTEN connection, well under a second, without waiting for the poll.
 */
describe.runIf(postgresUrl)('the read model wakes on another instance’s write [postgres]', () => {
  it('a write through one instance is in the other’s model within a second, with the poll an hour away', { timeout: 60_000 }, async () => {
    const { schema, drop } = await createTestSchema();
    const writer = await openDatabase(postgresUrl!, { schema, poolSize: 2 });
    const reader = await openDatabase(postgresUrl!, { schema, poolSize: 2 });
    // The poll is an hour: only the NOTIFY can bring the write within the test.
    const source = new StoreModelSource(reader, { pollMs: 3_600_000, listen: true });
    try {
      await source.loaded;
      // The LISTEN connection is opened after the load: a first write, waited for as long as the test allows.
      await upsertTeams(writer.db, [{ id: 'first', name: 'First' }]);
      await timeUntil(() => source.model.teams.has('first'), 30_000);

      const times: number[] = [];
      for (let round = 0; round < 5; round += 1) {
        const id = `t${round}`;
        await upsertTeams(writer.db, [{ id, name: `Team ${round}` }]);
        // Any arrival is the NOTIFY's (the poll is an hour away); the bound only guards a hang.
        times.push(await timeUntil(() => source.model.teams.get(id)?.name === `Team ${round}`, 30_000));
      }
      expect(median(times), times.map(Math.round).join(', ')).toBeLessThan(1_000);
    } finally {
      await source.close();
      await writer.close();
      await reader.close();
      await drop();
    }
  });

  it('a model without LISTEN (polling only) does not see the write until it reads the feed', { timeout: 60_000 }, async () => {
    const { schema, drop } = await createTestSchema();
    await expectUnseenUntilCatchUp(() => openDatabase(postgresUrl!, { schema, poolSize: 2 }), false, drop);
  });
});

/**
 * MySQL has no LISTEN/NOTIFY (src/store/mysql/index.ts): there another instance's directory write reaches the
 * read model at its next poll of the feed, every READ_MODEL_POLL_MS (docs/scaling.md). The bound is the poll
 * period plus one catch-up read.
 */
describe.runIf(mysqlUrl)('the read model follows another instance’s write by polling [mysql]', () => {
  it('a write through one instance is in the other’s model within the poll bound', { timeout: 60_000 }, async () => {
    const store = await freshStore('mysql');
    const writer = await store.open();
    const reader = await store.open();
    const source = new StoreModelSource(reader, { pollMs: READ_MODEL_POLL_MS });
    try {
      await source.loaded;
      const times: number[] = [];
      for (let round = 0; round < 5; round += 1) {
        const id = `t${round}`;
        await upsertTeams(writer.db, [{ id, name: `Team ${round}` }]);
        times.push(await timeUntil(() => source.model.teams.get(id)?.name === `Team ${round}`, 30_000));
      }
      expect(median(times), times.map(Math.round).join(', ')).toBeLessThan(READ_MODEL_POLL_MS + 1_000);
    } finally {
      await source.close();
      await writer.close();
      await reader.close();
      await store.drop();
    }
  });

  it('asking to listen changes nothing: with the poll an hour away the write waits for a read of the feed', { timeout: 60_000 }, async () => {
    const store = await freshStore('mysql');
    await expectUnseenUntilCatchUp(() => store.open(), true, store.drop);
  });
});
