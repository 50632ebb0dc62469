import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import { PlatformClient } from '../../src/platform/platform-client.js';
import { SeatTaskWorker } from '../../src/platform/seat-task-worker.js';
import { seatTasksListener } from '../../src/platform/seat-tasks.js';
import { sqlSeatTasks } from '../../src/store/platform/seat-tasks.js';
import { describeEachStore } from '../helpers/stores.js';
import { StandInPlatform } from './stand-in-platform.js';

const APP = { appId: 'seat-app', appSecret: 'seat-app-secret-0123456789' };
const T0 = Date.parse('2025-03-01T08:00:00Z');

describeEachStore('seat tasks follow the directory', (store) => {
  let sim: RunningSimulator;
  let now = T0;
  const clock = () => now;
  const queue = () => sqlSeatTasks(store().db);
  const tasks = () => store().db.selectFrom('platform_seat_tasks').select(['user_id', 'action', 'status', 'attempts', 'last_error', 'next_attempt_ms']).orderBy('id').execute();

  beforeAll(async () => {
    sim = await startSimulator({ credentials: APP });
  });
  afterAll(() => sim.close());
  beforeEach(async () => {
    await store().db.deleteFrom('platform_seat_tasks').execute();
    sim.platform.world.seats.clear();
    now = T0;
  });

  const listener = seatTasksListener({ platformApiUrl: 'http://platform.test', platform: { seatSync: true } }, sqlSeatTasks, clock);

  it("queues deactivations and activations inside the directory change's transaction, and nothing when it rolls back", async () => {
    await store()
      .db.transaction()
      .execute((trx) => listener(trx, { deactivatedUsers: ['olga', 'bob'], reactivatedUsers: ['wang'] }, { source: 'scim' }));
    expect((await tasks()).map(({ user_id, action, status }) => `${user_id} ${action} ${status}`)).toEqual([
      'olga deactivate pending',
      'bob deactivate pending',
      'wang activate pending',
    ]);
    await expect(
      store()
        .db.transaction()
        .execute(async (trx) => {
          await listener(trx, { deactivatedUsers: ['carol'], reactivatedUsers: [] }, { source: 'api' });
          throw new Error('the directory change failed');
        }),
    ).rejects.toThrow('the directory change failed');
    expect((await tasks()).map((task) => task.user_id)).not.toContain('carol');
  });

  it('queues nothing without PLATFORM_API_URL, with PLATFORM_SEAT_SYNC off, or on a dry run', async () => {
    const off = seatTasksListener({ platformApiUrl: undefined }, sqlSeatTasks, clock);
    const syncOff = seatTasksListener({ platformApiUrl: 'http://platform.test', platform: { seatSync: false } }, sqlSeatTasks, clock);
    const diff = { deactivatedUsers: ['olga'], reactivatedUsers: [] };
    await store()
      .db.transaction()
      .execute(async (trx) => {
        await off(trx, diff, { source: 'api' });
        await syncOff(trx, diff, { source: 'api' });
        await listener(trx, diff, { source: 'api', dryRun: true });
      });
    expect(await tasks()).toEqual([]);
  });

  it('sends them to the platform, one call per action, and marks them done', async () => {
    await queue().enqueue(
      [
        { userId: 'olga', action: 'activate' },
        { userId: 'bob', action: 'activate' },
      ],
      { source: 'api', nowMs: now },
    );
    const worker = new SeatTaskWorker(queue(), new PlatformClient({ apiUrl: sim.url, credentials: APP }), { now: clock });
    expect(await worker.runOnce()).toBe(2);
    await queue().enqueue([{ userId: 'olga', action: 'deactivate' }], { source: 'api', nowMs: now });
    expect(await worker.runOnce()).toBe(1);
    expect(await worker.runOnce()).toBe(0);
    expect((await tasks()).map(({ user_id, action, status }) => `${user_id} ${action} ${status}`)).toEqual(['olga activate done', 'bob activate done', 'olga deactivate done']);
    expect(Object.fromEntries([...sim.platform.world.seats].map(([id, seat]) => [id, seat.status]))).toEqual({ olga: 0, bob: 1 });
  });

  it('only the latest wish about a seat is sent: a change of mind before the worker runs supersedes the earlier task', async () => {
    await queue().enqueue([{ userId: 'olga', action: 'deactivate' }], { source: 'api', nowMs: now });
    await queue().enqueue([{ userId: 'olga', action: 'activate' }], { source: 'api', nowMs: now });
    const worker = new SeatTaskWorker(queue(), new PlatformClient({ apiUrl: sim.url, credentials: APP }), { now: clock });
    await worker.runOnce();
    expect((await tasks()).map(({ action, status }) => `${action} ${status}`)).toEqual(['deactivate superseded', 'activate done']);
    expect(sim.platform.world.seats.get('olga')?.status).toBe(1);
  });

  it("keeps a user's tasks in order: a task queued while an earlier one is being sent waits for it", async () => {
    await queue().enqueue([{ userId: 'olga', action: 'deactivate' }], { source: 'api', nowMs: now });
    const inFlight = await queue().claim({ limit: 10, leaseMs: 60_000, nowMs: now });
    await queue().enqueue([{ userId: 'olga', action: 'activate' }], { source: 'api', nowMs: now });
    expect((await queue().claim({ limit: 10, leaseMs: 60_000, nowMs: now })).tasks).toEqual([]);
    await queue().finish(
      inFlight.claimToken,
      inFlight.tasks.map((task) => task.id),
      now,
    );
    expect((await queue().claim({ limit: 10, leaseMs: 60_000, nowMs: now })).tasks.map((task) => task.action)).toEqual(['activate']);
  });

  it('retries a failed call with backoff until the platform takes it, and shows why in the row', async () => {
    const down = new StandInPlatform();
    await down.start();
    try {
      down.answerNext({ kind: 'error', status: 503, body: { message: 'maintenance' } }, { kind: 'error', status: 503, body: { message: 'maintenance' } });
      const worker = new SeatTaskWorker(queue(), new PlatformClient({ apiUrl: down.url, credentials: APP }), { now: clock, random: () => 0, baseDelayMs: 1000 });
      await queue().enqueue([{ userId: 'olga', action: 'deactivate' }], { source: 'api', nowMs: now });
      await worker.runOnce();
      let [task] = await tasks();
      expect(task).toMatchObject({ status: 'pending', attempts: 1, next_attempt_ms: T0 + 500 });
      expect(task!.last_error).toBe('the platform refused POST /sdk/v2/api/license/users/deactivate: HTTP 503; body {"message":"maintenance"}');
      expect(await worker.runOnce()).toBe(0); // not due yet
      now = T0 + 500;
      await worker.runOnce();
      [task] = await tasks();
      expect(task).toMatchObject({ status: 'pending', attempts: 2, next_attempt_ms: T0 + 500 + 1000 });
      now = T0 + 1500;
      await worker.runOnce(); // the stand-in now answers 204
      expect((await tasks())[0]).toMatchObject({ status: 'done', attempts: 3, last_error: null });
      expect(down.calls.map((call) => call.body)).toEqual([{ userIds: ['olga'] }, { userIds: ['olga'] }, { userIds: ['olga'] }]);
    } finally {
      await down.stop();
    }
  });

  it('never gives the same task to two workers claiming at once', async () => {
    const users = Array.from({ length: 12 }, (_, i) => ({ userId: `u${i}`, action: 'activate' as const }));
    await queue().enqueue(users, { source: 'api', nowMs: now });
    const claims = await Promise.all([0, 1, 2].map(() => queue().claim({ limit: 5, leaseMs: 60_000, nowMs: now })));
    const claimed = claims.flatMap((claim) => claim.tasks.map((task) => task.userId));
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.length).toBe(12);
  });
});
