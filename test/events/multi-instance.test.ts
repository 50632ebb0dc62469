import { createHash } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryService } from '../../src/directory/directory-service.js';
import { EventProcessor } from '../../src/events/event-processor.js';
import { EventCounters } from '../../src/events/event-stats.js';
import { OutboxWorker } from '../../src/events/outbox-worker.js';
import { ReminderScheduler } from '../../src/events/reminder-scheduler.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { outbox } from '../../src/store/notify/outbox.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { dialects } from '../helpers/stores.js';
import { pgSessionsWaitingOn } from '../helpers/lock-waits.js';
import { freshStore } from '../ops/fresh-store.js';
import { buildEventApp, postEvent, revision, signedHeaders, fileContent, tokenHeaders } from './event-fixtures.js';
import { startReceiver } from './webhook-receiver.js';

const SECRET = 'multi-instance-secret';

/** Runs every task's `runOnce` side by side, round after round, until a whole round finds no work. */
async function roundsUntilIdle(tasks: Array<{ runOnce(): Promise<number> }>): Promise<number[]> {
  const totals = tasks.map(() => 0);
  for (;;) {
    const counts = await Promise.all(tasks.map((task) => task.runOnce()));
    counts.forEach((count, index) => (totals[index]! += count));
    if (counts.every((count) => count === 0)) return totals;
  }
}

/**
 * A session of its own on the store at `url` (outside collab-host's pools) that holds locks for a test: its
 * server-side id, and the ids of the sessions waiting on a lock one of `ids` holds.
 */
interface Blocker {
  id: number;
  begin(): Promise<void>;
  /** Inserts, uncommitted, an event row with this delivery key. */
  holdDeliveryKey(key: string): Promise<void>;
  rollback(): Promise<void>;
  waitingOn(ids: number[]): Promise<number[]>;
  end(): Promise<void>;
}

const HELD_EVENT = `INSERT INTO events (delivery_key, kind, credential, outcome, received_at, body) VALUES (KEY, 'Revision', 'token', 'refused', '2024-01-01T00:00:00Z', '{}')`;

async function openBlocker(dialect: 'postgres' | 'mysql', url: string): Promise<Blocker> {
  if (dialect === 'mysql') {
    const connection = await createConnection(url);
    const [[{ id }]] = (await connection.query('SELECT CONNECTION_ID() AS id')) as unknown as [[{ id: number }]];
    return {
      id,
      begin: async () => void (await connection.query('BEGIN')),
      holdDeliveryKey: async (key) => void (await connection.query(HELD_EVENT.replace('KEY', '?'), [key])),
      rollback: async () => void (await connection.query('ROLLBACK')),
      async waitingOn(ids) {
        // MariaDB does not always list a statement waiting on a key another transaction inserted in INNODB_LOCK_WAITS
        // (nor its transaction in INNODB_TRX): a session of this database that has been running one statement for a
        // while, while `ids` hold their locks, is waiting on them.
        const [rows] = (await connection.query(
          `SELECT ID AS id FROM information_schema.PROCESSLIST
           WHERE DB = DATABASE() AND COMMAND = 'Query' AND ID <> CONNECTION_ID() AND ID NOT IN (?) AND TIME_MS > 50`,
          [ids],
        )) as unknown as [Array<{ id: number }>];
        return rows.map((row) => Number(row.id));
      },
      end: () => connection.end(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const id = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return {
    id,
    begin: async () => void (await client.query('BEGIN')),
    holdDeliveryKey: async (key) => void (await client.query(HELD_EVENT.replace('KEY', '$1'), [key])),
    rollback: async () => void (await client.query('ROLLBACK')),
    waitingOn: (ids) => pgSessionsWaitingOn(client, ids),
    end: () => client.end(),
  };
}

/**
 * Several collab-host instances over one database (a PostgreSQL schema, a MySQL database) share the event log,
 * the outbox and the reminders. (SQLite has one writing process, docs/scaling.md: no two instances there.)
 */
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(dialects.includes(dialect))(`two instances on one ${dialect} database [${dialect}]`, () => {
    let first: OpenDatabase;
    let second: OpenDatabase;
    let drop: () => Promise<void>;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;

    beforeAll(async () => {
      const store = await freshStore(dialect);
      drop = store.drop;
      first = await store.open({ poolSize: 4 });
      second = await store.open({ poolSize: 4 });
      await seedDirectory(first.db);
      receiver = await startReceiver(SECRET);
    });
    afterAll(async () => {
      await first.close();
      await second.close();
      await receiver.close();
      await drop();
    });

    it('two event processors derive each event once, the events of each file in the order they were logged', async () => {
      const { app } = await buildEventApp(first);
      try {
        // Revisions on four files by their editors, and content versions: each file's events in a known order.
        const authors: Record<string, string> = { plan: 'zhang', sheet: 'alice', secret: 'zhang', locked: 'alice' };
        const posted: Array<{ fileId: string; body: string }> = [];
        for (let round = 0; round < 15; round += 1) {
          for (const [fileId, author] of Object.entries(authors)) {
            const body = JSON.stringify(revision(fileId, author, 'create', round * 10 + 1));
            expect((await postEvent(app, 'Revision', body, tokenHeaders(author))).statusCode).toBe(200);
            const content = JSON.stringify(fileContent(fileId, author, round + 1, 1_709_280_000_000 + round));
            expect((await postEvent(app, 'FileContent', content, signedHeaders(fileId))).statusCode).toBe(200);
            posted.push({ fileId, body }, { fileId, body: content });
          }
        }
        const counters = [new EventCounters(), new EventCounters()];
        const processors = [first, second].map(
          (store, index) =>
            new EventProcessor(store.db, new DirectoryService(SqlDirectory.over(store), { watermarkTemplate: [] }), {
              receivers: [],
              maxFanout: 100,
              batchSize: 7,
              counters: counters[index],
            }),
        );
        const totals = await roundsUntilIdle(processors);
        expect(totals[0]! + totals[1]!).toBe(posted.length);

        const events = await first.db.selectFrom('events').select(['id', 'outcome', 'file_id']).orderBy('id').execute();
        expect(events.every((event) => event.outcome === 'processed')).toBe(true);
        const notifications = await first.db.selectFrom('notifications').select('event_id').execute();
        expect(notifications).toHaveLength(posted.length); // one revision.changed or file.updated per event
        expect(new Set(notifications.map((row) => row.event_id)).size).toBe(posted.length);
        // Per file, the revision log was written in the order of the events.
        for (const fileId of Object.keys(authors)) {
          const log = await first.db.selectFrom('revisions').select(['event_id']).where('file_id', '=', fileId).orderBy('seq').execute();
          const ids = log.map((row) => Number(row.event_id));
          expect(ids).toEqual([...ids].sort((a, b) => a - b));
          expect(ids).toHaveLength(15);
          const version = await first.db.selectFrom('files').select('version').where('id', '=', fileId).executeTakeFirstOrThrow();
          expect(version.version).toBe(15);
        }
      } finally {
        await app.close();
      }
    });

    it('applies the events of a file in log order when an append that took a lower id commits late', { timeout: 180_000 }, async () => {
      const own = await freshStore(dialect);
      const stores = [await own.open({ poolSize: 3 }), await own.open({ poolSize: 3 })];
      const blocker = await openBlocker(dialect, own.url);
      const apps = [] as Array<Awaited<ReturnType<typeof buildEventApp>>>;
      const waitingOn = (ids: number[]) => blocker.waitingOn(ids);
      try {
        await seedDirectory(stores[0]!.db);
        for (const store of stores) apps.push(await buildEventApp(store));
        const [one, two] = apps as [(typeof apps)[number], (typeof apps)[number]];
        const earlier = JSON.stringify(revision('plan', 'zhang', 'create', 1));
        const later = JSON.stringify(revision('plan', 'zhang', 'create', 2));
        // Another session holds the earlier event's delivery key, uncommitted: that append takes its id, then waits.
        await blocker.begin();
        await blocker.holdDeliveryKey(createHash('sha256').update(`Revision\n${earlier}`).digest('hex'));
        let earlierSettled = false;
        const earlierAnswer = postEvent(one.app, 'Revision', earlier, tokenHeaders('zhang')).finally(() => (earlierSettled = true));
        // Poll the server with a short pause between looks: it leaves the CPU to the sessions under test.
        const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
        let appending: number[] = [];
        for (let looks = 0; appending.length === 0; looks += 1) {
          appending = await waitingOn([blocker.id]);
          if (appending.length > 0) break;
          // The append must wait on the held key; if it was answered instead, or never shows, say so and stop.
          if (earlierSettled) {
            const answer = await earlierAnswer;
            throw new Error(`the earlier event was answered (${answer.statusCode} ${JSON.stringify(answer.json())}) without waiting on the held delivery key`);
          }
          if (looks >= 20_000) throw new Error('no session of the store waited on the held delivery key within 20,000 looks');
          await pause();
        }
        // The later event, through the other instance: logged (or waiting its turn) while the earlier one waits.
        let laterSettled = false;
        const laterAnswer = postEvent(two.app, 'Revision', later, tokenHeaders('zhang')).finally(() => (laterSettled = true));
        // (PostgreSQL shows it queued behind the earlier append, InnoDB behind the blocker itself.)
        const waitsItsTurn = async () => (await waitingOn([blocker.id, ...appending])).some((id) => !appending.includes(id));
        // It may also wait its turn inside its process, where no lock view shows it (seen under load): after a
        // few hundred looks the test goes on, the later event started either way, which is what matters here.
        for (let looks = 0; !laterSettled && looks < 300 && !(await waitsItsTurn()); looks += 1) await pause();
        // Both instances process whatever is logged by now, then the earlier append goes through.
        await roundsUntilIdle([one.pipeline.processor, two.pipeline.processor]);
        await blocker.rollback();
        expect((await earlierAnswer).statusCode).toBe(200);
        expect((await laterAnswer).statusCode).toBe(200);
        await roundsUntilIdle([one.pipeline.processor, two.pipeline.processor]);
        const log = await stores[0]!.db.selectFrom('revisions').select(['revision_id', 'event_id']).where('file_id', '=', 'plan').orderBy('seq').execute();
        expect(log.map((row) => Number(row.revision_id))).toEqual([1, 2]);
        const ids = log.map((row) => Number(row.event_id));
        expect(ids[0]).toBeLessThan(ids[1]!);
      } finally {
        await blocker.end().catch(() => {});
        for (const { app } of apps) await app.close();
        for (const store of stores) await store.close();
        await own.drop();
      }
    });

    it('two outbox workers deliver each notification exactly once', async () => {
      const drafts = Array.from({ length: 60 }, (_, index) => ({
        type: 'file.updated',
        occurredAt: '2024-03-01T08:00:00Z',
        data: { fileId: `f${index}`, version: index },
        dedupeKey: `multi:${index}`,
        eventId: null,
      }));
      const nowMs = Date.now();
      const ids = await outbox.enqueue(first.db, drafts, [receiver.url], nowMs);
      expect(ids).toHaveLength(60);
      const workers = [first, second].map((store) => new OutboxWorker(store, { secret: SECRET, batchSize: 4, now: () => nowMs }));
      const totals = await roundsUntilIdle(workers);
      expect(totals[0]! + totals[1]!).toBe(60);
      const perId = new Map<string, number>();
      for (const request of receiver.received) perId.set(request.body.id, (perId.get(request.body.id) ?? 0) + 1);
      expect([...perId.keys()].sort()).toEqual([...ids].sort());
      expect([...perId.values()].every((count) => count === 1)).toBe(true);
      expect(receiver.received.every((request) => request.signatureValid)).toBe(true);
      const statuses = await first.db.selectFrom('notifications').select('status').distinct().where('dedupe_key', 'like', 'multi:%').execute();
      expect(statuses).toEqual([{ status: 'delivered' }]);
    });

    it('two schedulers fire each due reminder exactly once', async () => {
      const now = Date.parse('2030-01-01T00:00:00Z');
      const rows = Array.from({ length: 40 }, (_, index) => ({
        file_id: 'plan',
        id: `r${index}`,
        author_id: 'zhang',
        content: `reminder ${index}`,
        remind_user_ids: '["lilei"]',
        remind_at: '2024-03-01T08:00:00Z',
        due_at_ms: now - 1000,
        status: 'scheduled',
        created_at: '2024-03-01T08:00:00Z',
        updated_at: '2024-03-01T08:00:00Z',
      }));
      await first.db.insertInto('reminders').values(rows).execute();
      const schedulers = [first, second].map((store) => new ReminderScheduler(store, { receivers: [], batchSize: 3, now: () => now }));
      const totals = await roundsUntilIdle(schedulers);
      expect(totals[0]! + totals[1]!).toBe(40);
      const due = await first.db.selectFrom('notifications').select('data').where('type', '=', 'reminder.due').execute();
      expect(due).toHaveLength(40);
      expect(new Set(due.map((row) => JSON.parse(row.data).reminderId)).size).toBe(40);
    });
  });
