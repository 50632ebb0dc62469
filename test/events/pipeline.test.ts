import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { EventStats } from '../../src/events/event-stats.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { freshStore } from '../ops/fresh-store.js';
import { createTestDatabase, createTestSchema, describeEachStore, dialects, postgresUrl } from '../helpers/stores.js';
import { pgSessionsWaitingOn } from '../helpers/lock-waits.js';
import {
  ADMIN_KEY,
  admin,
  adminGet,
  buildEventApp,
  collaborator,
  commentCreate,
  dateMention,
  fileContent,
  postEvent,
  revision,
  signedHeaders,
  systemCallbackError,
  tokenHeaders,
  type ListedEvent,
} from './event-fixtures.js';

const T = 1_709_280_000_000;
const LATER = Date.parse('2024-06-01T00:00:00Z');

/** A store that outlives an instance (a restart): an SQLite file, one PostgreSQL schema, or one MySQL database. */
async function lastingStore(dialect: DialectName) {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'collab-pipeline-'));
    const url = `sqlite:${join(dir, 'store.db')}`;
    return { schema: undefined, open: () => openDatabase(url), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (dialect === 'mysql') {
    const { url, drop } = await createTestDatabase();
    return { schema: undefined, open: () => openDatabase(url, { poolSize: 3 }), drop };
  }
  const { schema, drop } = await createTestSchema();
  return { schema, open: () => openDatabase(postgresUrl as string, { schema, poolSize: 3 }), drop };
}

/** Everything events derive, counted: what must not change when an event is derived again. */
async function effectCounts(store: OpenDatabase) {
  const count = async (table: 'notifications' | 'activity' | 'revisions' | 'notification_deliveries') =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    notifications: await count('notifications'),
    deliveries: await count('notification_deliveries'),
    activity: await count('activity'),
    revisions: await count('revisions'),
    failures: (await store.db.selectFrom('callback_failures').select('count').execute()).map((row) => Number(row.count)),
    reminders: await store.db.selectFrom('reminders').select(['id', 'content', 'remind_at', 'status']).orderBy('seq').execute(),
    version: (await store.db.selectFrom('files').select('version').where('id', '=', 'plan').executeTakeFirstOrThrow()).version,
  };
}

/** One event of each kind that derives something, by users allowed to send it. */
const EVERY_KIND: Array<{ kind: string; body: unknown; headers: () => Record<string, string> }> = [
  { kind: 'Comment', body: commentCreate('plan', 'zhang', { guid: 'every-1', content: '@lilei', userIds: ['lilei'] }), headers: () => tokenHeaders('zhang') },
  {
    kind: 'DateMention',
    body: dateMention('plan', 'zhang', 'create', { id: 'every-r', content: 'due', remindUserIds: ['lilei'], remindAt: '2030-01-01T00:00:00Z' }),
    headers: () => tokenHeaders('zhang'),
  },
  {
    kind: 'DateMention',
    body: dateMention('plan', 'zhang', 'update', { id: 'every-r', content: 'moved', remindAt: '2030-01-02T00:00:00Z' }),
    headers: () => tokenHeaders('zhang'),
  },
  { kind: 'FileContent', body: fileContent('plan', 'lilei', 9, T), headers: () => signedHeaders('plan') },
  { kind: 'Collaborator', body: collaborator('plan', 'lilei', 'enter', 'tab-1', T), headers: () => signedHeaders('plan') },
  { kind: 'Revision', body: revision('plan', 'zhang', 'create', 31), headers: () => tokenHeaders('zhang') },
  { kind: 'System', body: systemCallbackError('http://collab.test/files/plan', 404), headers: () => signedHeaders('plan') },
];

for (const dialect of dialects) {
  describe(`acknowledged at the append, effects from the log [${dialect}]`, () => {
    it('an instance that stops between the acknowledgement and the effects loses nothing; the next applies them once', async () => {
      const place = await lastingStore(dialect);
      try {
        // First instance: takes the events and stops before deriving anything (its processor never ran).
        let store = await place.open();
        await seedDirectory(store.db);
        const first = await buildEventApp(store, { adminApiKey: ADMIN_KEY });
        for (const event of EVERY_KIND) expect((await postEvent(first.app, event.kind, event.body, event.headers())).statusCode).toBe(200);
        const waiting = await adminGet<{ items: ListedEvent[] }>(first.app, '/api/events');
        expect(waiting.items.map((item) => item.outcome)).toEqual(EVERY_KIND.map(() => 'pending'));
        expect((await adminGet<EventStats>(first.app, '/api/events/stats')).waiting.count).toBe(EVERY_KIND.length);
        expect(await effectCounts(store)).toMatchObject({ notifications: 0, activity: 0, revisions: 0, reminders: [] });
        await first.app.close();
        await store.close();

        // Second instance over the same store: derives every effect, once.
        store = await place.open();
        const second = await buildEventApp(store, { adminApiKey: ADMIN_KEY });
        await second.settle();
        const applied = await effectCounts(store);
        expect(applied).toEqual({
          notifications: 5, // comment.created, mention.created, file.updated, revision.changed, callback.failed
          deliveries: 0,
          activity: 5, // comment, mention, edit, open, revision
          revisions: 1,
          failures: [1],
          reminders: [{ id: 'every-r', content: 'moved', remind_at: '2030-01-02T00:00:00Z', status: 'scheduled' }],
          version: 9,
        });
        const done = await adminGet<{ items: ListedEvent[] }>(second.app, '/api/events');
        expect(done.items.map((item) => item.outcome)).toEqual(EVERY_KIND.map(() => 'processed'));

        // Deriving them all again (re-processing) applies nothing twice.
        for (const item of done.items) {
          const again = await second.app.inject({ method: 'POST', url: `/api/events/${item.id}/reprocess`, headers: admin });
          expect(again.json()).toEqual({ id: item.id, outcome: 'processed', problem: null });
        }
        expect(await effectCounts(store)).toEqual(applied);
        await second.app.close();
        await store.close();
      } finally {
        await place.drop();
      }
    });
  });
}

describeEachStore('effects of one batch', (store) => {
  it('come out as if applied one event after another, per file in the order logged', async () => {
    await seedDirectory(store().db);
    const { app, settle } = await buildEventApp(store(), { adminApiKey: ADMIN_KEY });
    try {
      const events: Array<[string, unknown]> = [
        ['Collaborator', collaborator('sheet', 'bob', 'enter', 'tab-1', T)],
        ['Collaborator', collaborator('sheet', 'bob', 'leave', 'tab-1', T + 3000)],
        ['Collaborator', collaborator('sheet', 'bob', 'enter', 'tab-1', T + 2000)], // late: older than the leave
        ['Collaborator', collaborator('sheet', 'alice', 'enter', 'a-1', T + 1000)],
        ['FileContent', fileContent('sheet', 'alice', 5, LATER + 5000)],
        ['FileContent', fileContent('sheet', 'alice', 4, LATER + 9000)], // an older version reported later
        ['FileContent', fileContent('sheet', 'alice', 7, LATER + 7000)],
      ];
      for (const [kind, body] of events) expect((await postEvent(app, kind, body, signedHeaders('sheet'))).statusCode).toBe(200);
      await settle(); // one processing step for all of them
      expect(await adminGet(app, '/api/files/sheet/presence')).toEqual({ fileId: 'sheet', users: [{ userId: 'alice', clients: ['a-1'], since: '2024-03-01T08:00:01Z' }] });
      const file = await store().db.selectFrom('files').select(['version', 'updated_at']).where('id', '=', 'sheet').executeTakeFirstOrThrow();
      expect(file).toEqual({ version: 7, updated_at: '2024-06-01T00:00:07Z' });
    } finally {
      await app.close();
    }
  });
});

describeEachStore('effects whose commit was lost', (store) => {
  it('are derived again with the same notification ids, so receivers see each fact once', async () => {
    await seedDirectory(store().db);
    const { app, settle } = await buildEventApp(store());
    try {
      const body = commentCreate('plan', 'zhang', { guid: 'lost-1', content: '@lilei', userIds: ['lilei'] });
      expect((await postEvent(app, 'Comment', body, tokenHeaders('zhang'))).statusCode).toBe(200);
      await settle();
      const before = await store().db.selectFrom('notifications').select(['id', 'type']).orderBy('type').execute();
      expect(before).toHaveLength(2);
      // A power cut took the effects' commit (it did not wait for the disk): the event is pending again.
      await store().db.deleteFrom('notifications').execute();
      await store().db.deleteFrom('activity').execute();
      await store().db.updateTable('events').set({ outcome: 'pending' }).execute();
      await settle();
      expect(await store().db.selectFrom('notifications').select(['id', 'type']).orderBy('type').execute()).toEqual(before);
    } finally {
      await app.close();
    }
  });
});

describeEachStore('effect lag and statistics', (store) => {
  it('measures the time from acknowledgement to effects, and what is waiting', async () => {
    await seedDirectory(store().db);
    const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
    const { app, pipeline } = await buildEventApp(store(), { adminApiKey: ADMIN_KEY }, { now: () => clock.now });
    try {
      // The pipeline's own intake, on its clock: two events, received 100 ms apart.
      for (const guid of ['lag-1', 'lag-2']) {
        const body = commentCreate('plan', 'zhang', { guid, content: 'x' });
        const answer = await pipeline.receive({
          headerKind: 'Comment',
          rawBody: JSON.stringify(body),
          body,
          token: tokenHeaders('zhang', 3600, clock.now)['x-platform-token'],
          signature: undefined,
        });
        expect(answer).toEqual({ status: 200 });
        clock.now += 100;
      }
      clock.now += 150;
      const before = await pipeline.stats();
      expect(before.waiting).toEqual({ count: 2, oldestAgeMs: 350 });
      expect(before.intake).toEqual({ Comment: { accepted: 2, refused: 0, duplicate: 0, unauthenticated: 0, malformed: 0 } });
      await pipeline.processor.drain();
      const after = await pipeline.stats();
      expect(after.waiting).toEqual({ count: 0, oldestAgeMs: 0 });
      expect(after.lag).toEqual({ p50Ms: 250, p99Ms: 350, sample: 2 });
      expect(after.processing).toEqual({ Comment: { processed: 2, unprocessed: 0 } });
      expect(after.outbox).toEqual({ pending: 0, oldestPendingAgeMs: 0, failedByReceiver: {} });
      // The management route serves the same figures (log, waiting, lag) for every instance.
      const served = await adminGet<EventStats>(app, '/api/events/stats');
      expect(served).toMatchObject({ log: { pending: 0, unprocessed: 0, refused: 0 }, lag: { p50Ms: 250, p99Ms: 350, sample: 2 } });
    } finally {
      await app.close();
    }
  });
});

/**
 * A session outside the store's pools that holds the outbox: on PostgreSQL an exclusive lock on
 * notifications; on MySQL the tail turn row that every insert into notifications raises (migration 150),
 * updated and uncommitted. `waiting` lists the sessions waiting on it (on MariaDB: the sessions of the
 * database running one statement for over 50 ms, since INNODB_LOCK_WAITS does not always list them), `cancel`
 * cancels a session's statement.
 */
async function outboxBlocker(dialect: 'postgres' | 'mysql', url: string) {
  if (dialect === 'mysql') {
    const connection = await createConnection(url);
    return {
      hold: async () => void (await connection.query('BEGIN'), await connection.query('UPDATE tail_turns SET n = n + 1 WHERE id = 1')),
      waiting: async () =>
        (
          (await connection.query(
            `SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND COMMAND = 'Query' AND ID <> CONNECTION_ID() AND TIME_MS > 50`,
          )) as unknown as [Array<{ id: number }>]
        )[0].map((row) => Number(row.id)),
      cancel: async (id: number) => void (await connection.query(`KILL QUERY ${Number(id)}`)),
      release: async () => void (await connection.query('ROLLBACK')),
      end: () => connection.end(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  return {
    hold: async () => void (await client.query('BEGIN'), await client.query('LOCK TABLE notifications IN ACCESS EXCLUSIVE MODE')),
    waiting: () => pgSessionsWaitingOn(client, [pid]),
    cancel: async (pid: number) => void (await client.query('SELECT pg_cancel_backend($1)', [pid])),
    release: async () => void (await client.query('ROLLBACK')),
    end: () => client.end(),
  };
}

// A server store's sessions (SQLite has one writer and no session to hold a lock from outside the process).
for (const dialect of ['postgres', 'mysql'] as const)
  describe.runIf(dialects.includes(dialect))(`a processing step that fails half way [${dialect}]`, () => {
    // Generous: on a loaded machine the two lock waits and the retry take a while (it is not a speed test).
    it('rolls back what it wrote; the events stay pending, and are then applied once', { timeout: 120_000 }, async () => {
      const fresh = await freshStore(dialect);
      const drop = fresh.drop;
      const store = await fresh.open({ poolSize: 3 });
      const blocker = await outboxBlocker(dialect, fresh.url);
      /** Sessions waiting on a lock the blocker holds. */
      const waitingOnBlocker = async () => {
        for (;;) {
          const ids = await blocker.waiting();
          if (ids.length > 0) return ids;
          // Poll the server, not a clock: a short pause only leaves the CPU to the session under test.
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      };
      try {
        await seedDirectory(store.db);
        const { app, settle, pipeline } = await buildEventApp(store);
        const body = commentCreate('plan', 'zhang', { guid: 'half-1', content: '@lilei', userIds: ['lilei'] });
        expect((await postEvent(app, 'Comment', body, tokenHeaders('zhang'))).statusCode).toBe(200);
        // Another session holds the outbox: the step claims the event and writes its activity, then waits.
        await blocker.hold();
        const step = pipeline.processor.runOnce();
        for (const id of await waitingOnBlocker()) await blocker.cancel(id);
        // Its transaction is gone; the processor tries the event alone, and waits again.
        await waitingOnBlocker();
        const seen = await store.db.selectFrom('events').select('outcome').executeTakeFirstOrThrow();
        expect(seen.outcome).toBe('pending');
        expect(await store.db.selectFrom('activity').select('kind').execute()).toEqual([]);
        await blocker.release();
        expect(await step).toBe(1);
        await settle();
        expect((await store.db.selectFrom('activity').select('kind').orderBy('kind').execute()).map((row) => row.kind)).toEqual(['comment', 'mention']);
        expect(await store.db.selectFrom('notifications').select('type').orderBy('type').execute()).toEqual([{ type: 'comment.created' }, { type: 'mention.created' }]);
        expect((await store.db.selectFrom('events').select('outcome').executeTakeFirstOrThrow()).outcome).toBe('processed');
        await app.close();
      } finally {
        await blocker.end().catch(() => undefined);
        await store.close();
        await drop();
      }
    });
  });
