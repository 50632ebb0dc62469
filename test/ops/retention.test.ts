import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, testConfig } from '../../src/config/config.js';
import { SILENT_LOG } from '../../src/events/polling-task.js';
import { Pruner, retentionTask, type RetentionWindows } from '../../src/retention/retention.js';
import { startServer } from '../../src/composition/server.js';
import { describeEachStore } from '../helpers/stores.js';
import { freshStore } from './fresh-store.js';
import { clearRetentionTables, DAY_MS, remainingRows, seedRetentionRows } from './retention-fixture.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');
const WINDOWS: RetentionWindows = { eventsDays: 90, notificationsDays: 30, activityDays: 90, presenceHours: 24, auditDays: 365 };

/** What survives a pass at NOW with WINDOWS: everything inside its window, and everything still pending. */
const KEPT = {
  events: ['inside-window', 'old-about-scheduled-reminder', 'old-pending', 'recent'],
  notifications: ['n-old-pending', 'n-old-resent', 'n-recent'],
  notification_deliveries: ['n-old-pending http://a', 'n-old-pending http://b', 'n-old-resent http://a', 'n-recent http://a'],
  activity: ['recent-1', 'recent-2'],
  presence: ['current'],
  audit_log: ['inside-window'],
};
const REMOVED = { events: 3, notifications: 2, notification_deliveries: 3, activity: 3, presence: 2, audit_log: 1 };

describeEachStore('retention', (store) => {
  beforeEach(async () => {
    await clearRetentionTables(store());
    await seedRetentionRows(store(), NOW);
  });

  it('a dry run counts what would go and changes nothing', async () => {
    const before = await remainingRows(store());
    const pruner = new Pruner(store().db, WINDOWS, { now: () => NOW });
    expect(await pruner.preview()).toEqual(REMOVED);
    expect(await remainingRows(store())).toEqual(before);
  });

  it('keeps everything inside its window and everything still pending, removes the rest', async () => {
    const pruner = new Pruner(store().db, WINDOWS, { now: () => NOW });
    expect(await pruner.pruneAll()).toEqual(REMOVED);
    expect(await remainingRows(store())).toEqual(KEPT);
    // What collab_host_retention_removed_total reports.
    expect(pruner.removedTotal).toEqual(REMOVED);
    expect(await pruner.preview()).toEqual({ events: 0, notifications: 0, notification_deliveries: 0, activity: 0, presence: 0, audit_log: 0 });
  });

  it('works in batches of the given size, every batch bounded', async () => {
    const pruner = new Pruner(store().db, WINDOWS, { now: () => NOW, batchSize: 1 });
    const first = await pruner.step();
    expect(first.more).toBe(true);
    expect(first.removed.events).toBe(1);
    expect(first.removed.notifications).toBe(1);
    expect(first.removed.activity).toBe(1);
    expect(first.removed.presence).toBe(1);
    // The rest, batch by batch: the same rows go as in one pass.
    const rest = await pruner.pruneAll();
    expect(rest.events + 1).toBe(REMOVED.events);
    expect(await remainingRows(store())).toEqual(KEPT);
  });

  it('a window of 0 keeps its table forever; the clock decides what is old', async () => {
    const keepEvents = new Pruner(store().db, { ...WINDOWS, eventsDays: 0, presenceHours: 0, auditDays: 0 }, { now: () => NOW });
    expect(await keepEvents.preview()).toEqual({ ...REMOVED, events: 0, presence: 0, audit_log: 0 });
    // A hundred days earlier nothing was old enough yet.
    expect(await new Pruner(store().db, WINDOWS, { now: () => NOW - 100 * DAY_MS }).pruneAll()).toEqual({
      events: 0,
      notifications: 0,
      notification_deliveries: 0,
      activity: 0,
      presence: 0,
      audit_log: 0,
    });
    // Later, what was recent goes too (never what is pending or about a scheduled reminder).
    await new Pruner(store().db, WINDOWS, { now: () => NOW + 200 * DAY_MS }).pruneAll();
    expect(await remainingRows(store())).toEqual({
      events: ['old-about-scheduled-reminder', 'old-pending'],
      notifications: ['n-old-pending', 'n-old-resent'],
      notification_deliveries: ['n-old-pending http://a', 'n-old-pending http://b', 'n-old-resent http://a'],
      activity: [],
      presence: [],
      audit_log: [],
    });
  });

  it('the background task prunes on start', async () => {
    const task = retentionTask(new Pruner(store().db, WINDOWS, { now: () => NOW }), 3_600_000, SILENT_LOG).start();
    await task.stop();
    expect(await remainingRows(store())).toEqual(KEPT);
  });
});

describe('retention in serve', () => {
  it('runs as a background worker of the server (its first pass at start), off with RETENTION_INTERVAL=0', async () => {
    for (const intervalMs of [0, 3_600_000]) {
      const fresh = await freshStore('sqlite');
      try {
        const seeded = await fresh.open();
        await seedRetentionRows(seeded, Date.now());
        await seeded.close();
        // No event processor: the fixture's pending event stays pending (one would process it, then it is old).
        const base = loadConfig({ EVENTS_PROCESSOR: 'false' });
        const config = testConfig({ databaseUrl: fresh.url, port: 0, events: base.events, retention: { ...base.retention, intervalMs } });
        const server = await startServer(config, { seedDemo: false });
        await server.close();
        const store = await fresh.open();
        const rows = await remainingRows(store);
        await store.close();
        expect(rows.events).toEqual(intervalMs === 0 ? expect.arrayContaining(['old-processed', 'old-refused']) : KEPT.events);
      } finally {
        await fresh.drop();
      }
    }
  });
});
