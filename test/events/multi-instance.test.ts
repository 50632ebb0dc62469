import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueNotifications } from '../../src/events/notification-writer.js';
import { OutboxWorker } from '../../src/events/outbox-worker.js';
import { ReminderScheduler } from '../../src/events/reminder-scheduler.js';
import { openDatabase, type OpenDatabase } from '../../src/store/database.js';
import { createTestSchema, postgresUrl } from '../helpers/stores.js';
import { startReceiver, waitFor } from './webhook-receiver.js';

const SECRET = 'multi-instance-secret';

/** Several collab-host instances over one PostgreSQL schema share the outbox and the reminders. */
describe.skipIf(!postgresUrl)('two instances on one PostgreSQL [postgres]', () => {
  let first: OpenDatabase;
  let second: OpenDatabase;
  let drop: () => Promise<void>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    const schema = await createTestSchema();
    drop = schema.drop;
    first = await openDatabase(postgresUrl as string, { schema: schema.schema, poolSize: 4 });
    second = await openDatabase(postgresUrl as string, { schema: schema.schema, poolSize: 4 });
    receiver = await startReceiver(SECRET);
  });
  afterAll(async () => {
    await first.close();
    await second.close();
    await receiver.close();
    await drop();
  });

  it('two outbox workers deliver each notification exactly once', async () => {
    const drafts = Array.from({ length: 60 }, (_, index) => ({
      type: 'file.updated' as const,
      occurredAt: '2024-03-01T08:00:00Z',
      data: { fileId: `f${index}`, version: index },
      eventId: null,
    }));
    const ids = await enqueueNotifications(first.db, drafts, [receiver.url], Date.now());
    expect(ids).toHaveLength(60);
    const workers = [first, second].map((store) => new OutboxWorker(store, { secret: SECRET, pollMs: 10, batchSize: 4 }).start());
    try {
      await waitFor(async () => (receiver.received.length >= 60 ? true : undefined), 15_000, 'all deliveries');
      // Give a double delivery the chance to show up.
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await Promise.all(workers.map((worker) => worker.stop()));
    }
    const perId = new Map<string, number>();
    for (const request of receiver.received) perId.set(request.body.id, (perId.get(request.body.id) ?? 0) + 1);
    expect([...perId.keys()].sort()).toEqual([...ids].sort());
    expect([...perId.values()].every((count) => count === 1)).toBe(true);
    expect(receiver.received.every((request) => request.signatureValid)).toBe(true);
    const statuses = await first.db.selectFrom('notifications').select('status').distinct().execute();
    expect(statuses).toEqual([{ status: 'delivered' }]);
  });

  it('two schedulers fire each due reminder exactly once', async () => {
    const now = Date.now();
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
    const schedulers = [first, second].map((store) => new ReminderScheduler(store, { receivers: [], batchSize: 3 }));
    const counts = await Promise.all(
      schedulers.map(async (scheduler) => {
        let total = 0;
        for (let fired = -1; fired !== 0; ) {
          fired = await scheduler.runOnce();
          total += fired;
        }
        return total;
      }),
    );
    expect(counts[0]! + counts[1]!).toBe(40);
    const due = await first.db.selectFrom('notifications').select('data').where('type', '=', 'reminder.due').execute();
    expect(due).toHaveLength(40);
    expect(new Set(due.map((row) => JSON.parse(row.data).reminderId)).size).toBe(40);
  });
});
