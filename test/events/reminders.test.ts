import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTime } from '../../src/directory/time.js';
import { ReminderScheduler } from '../../src/events/reminder-scheduler.js';
import { startServer, type RunningServer } from '../../src/composition/server.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { dialects } from '../helpers/stores.js';
import { freshStore } from '../ops/fresh-store.js';
import { buildEventApp, dateMention, postEvent, tokenHeaders } from './event-fixtures.js';
import { startReceiver, waitFor } from './webhook-receiver.js';

/** A store that can be closed and opened again (a restart): a SQLite file, one PostgreSQL schema, or one MySQL database. */
const restartableStore = (dialect: DialectName) => freshStore(dialect);

const dueNotifications = (store: OpenDatabase) =>
  store.db.selectFrom('notifications').select(['type', 'data', 'occurred_at']).where('type', '=', 'reminder.due').orderBy('seq').execute();

for (const dialect of dialects) {
  describe(`reminders [${dialect}]`, () => {
    it('a reminder due while the service was down fires once on the next start', async () => {
      const place = await restartableStore(dialect);
      try {
        // First run: the reminder is created, then the service stops before it is due.
        let store = await place.open();
        await seedDirectory(store.db);
        const first = await buildEventApp(store, { notifyWebhookUrls: ['http://receiver.test/hook'] });
        const remindAt = '2030-01-01T08:00:00Z';
        const create = dateMention('plan', 'zhang', 'create', { id: 'r-down', content: '开会', remindUserIds: ['lilei'], remindAt });
        expect((await postEvent(first.app, 'DateMention', create, tokenHeaders('zhang'))).statusCode).toBe(200);
        await first.settle();
        // Asked just before remindAt: nothing is due yet.
        const early = new ReminderScheduler(store, { receivers: ['http://receiver.test/hook'], now: () => Date.parse(remindAt) - 500 });
        expect(await early.runOnce()).toBe(0);
        await first.app.close();
        await store.close();

        // Second run over the same store, after remindAt: the scheduler's first pass fires it, later passes do not.
        store = await place.open();
        const afterwards = () => Date.parse(remindAt) + 50;
        const scheduler = new ReminderScheduler(store, { receivers: ['http://receiver.test/hook'], now: afterwards });
        expect(await scheduler.runOnce()).toBe(1);
        expect(await scheduler.runOnce()).toBe(0);
        expect(await new ReminderScheduler(store, { receivers: [], now: afterwards }).runOnce()).toBe(0);
        const fired = await dueNotifications(store);
        expect(fired).toHaveLength(1);
        expect(JSON.parse(fired[0]!.data)).toEqual({ reminderId: 'r-down', fileId: 'plan', authorId: 'zhang', content: '开会', remindUserIds: ['lilei'], remindAt });
        expect(fired[0]!.occurred_at).toBe(remindAt);
        const reminder = await store.db.selectFrom('reminders').select(['status', 'fired_at']).executeTakeFirstOrThrow();
        expect(reminder).toEqual({ status: 'fired', fired_at: '2030-01-01T08:00:00Z' });
        await store.close();
      } finally {
        await place.drop();
      }
    });

    it('a moved reminder fires at its new time; a cancelled one never fires', async () => {
      const place = await restartableStore(dialect);
      const store = await place.open();
      try {
        await seedDirectory(store.db);
        const { app, settle } = await buildEventApp(store);
        const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
        const scheduler = new ReminderScheduler(store, { receivers: [], now: () => clock.now });
        const post = async (body: unknown) => {
          expect((await postEvent(app, 'DateMention', body, tokenHeaders('alice'))).statusCode).toBe(200);
          await settle();
        };
        await post(dateMention('sheet', 'alice', 'create', { id: 'm', content: 'a', remindUserIds: ['bob'], remindAt: '2030-01-01T08:00:00Z' }));
        await post(dateMention('sheet', 'alice', 'create', { id: 'c', content: 'b', remindUserIds: ['bob'], remindAt: '2030-01-01T08:00:00Z' }));
        await post(dateMention('sheet', 'alice', 'update', { id: 'm', content: 'moved', remindUserIds: ['carol'], remindAt: '2030-01-01T10:00:00Z' }));
        await post(dateMention('sheet', 'alice', 'remove', { id: 'c' }));

        clock.now = Date.parse('2030-01-01T09:00:00Z');
        expect(await scheduler.runOnce()).toBe(0);
        clock.now = Date.parse('2030-01-01T10:00:00Z');
        expect(await scheduler.runOnce()).toBe(1);
        const fired = await dueNotifications(store);
        expect(fired.map((n) => JSON.parse(n.data))).toEqual([
          { reminderId: 'm', fileId: 'sheet', authorId: 'alice', content: 'moved', remindUserIds: ['carol'], remindAt: '2030-01-01T10:00:00Z' },
        ]);
        // Moved again after firing: it fires once more at the new time.
        await post(dateMention('sheet', 'alice', 'update', { id: 'm', content: 'again', remindAt: '2030-01-02T10:00:00Z' }));
        clock.now = Date.parse('2030-01-02T10:00:01Z');
        expect(await scheduler.runOnce()).toBe(1);
        expect(await scheduler.runOnce()).toBe(0);
        expect((await dueNotifications(store)).map((n) => JSON.parse(n.data).content)).toEqual(['moved', 'again']);
        await app.close();
      } finally {
        await store.close();
        await place.drop();
      }
    });
  });
}

describe('a due reminder, end to end (the server processor, scheduler and outbox; real sockets)', () => {
  const SECRET = 'reminder-webhook-secret';
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: RunningServer;
  let dir: string;

  beforeAll(async () => {
    receiver = await startReceiver(SECRET);
    dir = mkdtempSync(join(tmpdir(), 'collab-reminder-'));
    const databaseUrl = `sqlite:${join(dir, 'store.db')}`;
    const seed = await openDatabase(databaseUrl);
    await seedDirectory(seed.db);
    await seed.close();
    server = await startServer(makeTestConfig({ port: 0, databaseUrl, notifyWebhookUrls: [receiver.url], notifyWebhookSecret: SECRET, logLevel: 'silent' }), { seedDemo: false });
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is acknowledged, derived, fired and delivered once, signed', async () => {
    const remindAt = formatTime(Math.floor(Date.now() / 1000) * 1000 - 1000); // already due
    const response = await fetch(`${server.address}/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-platform-sdk-event': 'DateMention', ...tokenHeaders('zhang') },
      body: JSON.stringify(dateMention('plan', 'zhang', 'create', { id: 'r-now', content: '现在', remindUserIds: ['lilei'], remindAt })),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({});
    const [arrived] = await waitFor(async () => (receiver.received.length > 0 ? receiver.received : undefined), 10_000, 'reminder.due');
    expect(arrived!.signatureValid).toBe(true);
    expect(arrived!.body).toMatchObject({ type: 'reminder.due', occurredAt: remindAt, data: { reminderId: 'r-now', fileId: 'plan', remindAt, remindUserIds: ['lilei'] } });
    const reminder = await server.store.db.selectFrom('reminders').select('status').where('id', '=', 'r-now').executeTakeFirstOrThrow();
    expect(reminder.status).toBe('fired');
    const notifications = await server.store.db.selectFrom('notifications').select('id').where('type', '=', 'reminder.due').execute();
    expect(notifications.map((row) => row.id)).toEqual([arrived!.body.id]);
  });
});
