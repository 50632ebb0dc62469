import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { OUTBOX_DEFAULTS, OutboxWorker, backoffDelay } from '../../src/events/outbox-worker.js';
import { outbox } from '../../src/store/notify/outbox.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { ADMIN_KEY, buildEventApp, commentCreate, postEvent, tokenHeaders } from './event-fixtures.js';
import { startReceiver, waitFor } from './webhook-receiver.js';

const SECRET = 'webhook-secret-for-tests';

interface Listed {
  id: string;
  type: string;
  status: string;
  attempts: number;
  deliveries: Array<{ receiver: string; status: string; attempts: number; lastError: string | null }>;
}

describeEachStore('notification delivery', (store) => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let other: Awaited<ReturnType<typeof startReceiver>>;
  let app: FastifyInstance;
  let settle: () => Promise<void>;
  let sequence = 0;
  /** The workers' clock: each round of `deliverAll` moves it past the longest backoff. */
  const clock = { now: Date.now() };

  beforeAll(async () => {
    await seedDirectory(store().db);
    receiver = await startReceiver(SECRET);
    other = await startReceiver(SECRET);
    ({ app, settle } = await buildEventApp(store(), { adminApiKey: ADMIN_KEY, notifyWebhookUrls: [receiver.url, other.url], notifyWebhookSecret: SECRET }));
  });
  afterEach(() => {
    receiver.state.respond = () => 200;
    other.state.respond = () => 200;
    receiver.state.delayMs = 0;
    receiver.state.hold = undefined;
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
    await other.close();
  });

  /** Sends what is due, round after round, each round a backoff later on the workers' clock, until nothing is due. */
  const deliverAll = async (options: Partial<ConstructorParameters<typeof OutboxWorker>[1]> = {}) => {
    const worker = new OutboxWorker(store(), { secret: SECRET, baseDelayMs: 1000, maxDelayMs: 60_000, maxAttempts: 5, now: () => clock.now, ...options });
    clock.now = Math.max(clock.now, Date.now()); // due: notifications made since are due by now
    while ((await worker.runOnce()) > 0) clock.now += 60_000;
  };
  /** Posts a comment; returns the id of its comment.created notification. */
  const newNotification = async (): Promise<string> => {
    sequence += 1;
    const response = await postEvent(app, 'Comment', commentCreate('plan', 'zhang', { guid: `d-${sequence}`, content: `n${sequence}` }), tokenHeaders('zhang'));
    expect(response.statusCode).toBe(200);
    await settle();
    const all = await listed();
    return all.find((n) => n.type === 'comment.created' && JSON.stringify(n).includes(`"d-${sequence}"`))!.id;
  };
  const listed = async (query = ''): Promise<Listed[]> => {
    const response = await app.inject({ method: 'GET', url: `/api/notifications?limit=500${query}`, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    return (response.json() as { items: Listed[] }).items;
  };
  const settled = async (id: string, status: string) => {
    const found = (await listed()).find((n) => n.id === id);
    expect(found?.status).toBe(status);
    return found!;
  };

  it('a receiver that fails twice then succeeds gets it three times, signed, and it is delivered once', async () => {
    const id = await newNotification();
    receiver.state.respond = (body, attempt) => (body.id === id && attempt <= 2 ? 500 : 200);
    await deliverAll();
    const done = await settled(id, 'delivered');
    const requests = receiver.forNotification(id);
    expect(requests.map((r) => r.status)).toEqual([500, 500, 200]);
    for (const request of requests) {
      expect(request.signatureValid).toBe(true);
      expect(request.headers['x-collab-delivery']).toBe(id);
      expect(request.headers['x-collab-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(request.body).toMatchObject({ id, type: 'comment.created', data: { fileId: 'plan', userId: 'zhang' } });
      expect(request.body.occurredAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    }
    // The other receiver answered at once and was not sent it again.
    expect(other.forNotification(id).map((r) => r.status)).toEqual([200]);
    expect(done.attempts).toBe(3);
    expect(done.deliveries).toEqual([
      expect.objectContaining({ receiver: receiver.url, status: 'delivered', attempts: 3 }),
      expect.objectContaining({ receiver: other.url, status: 'delivered', attempts: 1 }),
    ]);
  });

  it('a receiver that always fails ends failed after the maximum attempts; re-send delivers it', async () => {
    const id = await newNotification();
    receiver.state.respond = (body) => (body.id === id ? 503 : 200);
    await deliverAll({ maxAttempts: 3 });
    const failed = await settled(id, 'failed');
    expect(receiver.forNotification(id)).toHaveLength(3);
    expect(failed.deliveries.find((d) => d.receiver === receiver.url)).toMatchObject({ status: 'failed', attempts: 3, lastError: 'HTTP 503' });
    expect((await listed('&status=failed')).map((n) => n.id)).toContain(id);

    const notFailed = await app.inject({
      method: 'POST',
      url: `/api/notifications/${(await listed('&status=delivered'))[0]!.id}/resend`,
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(notFailed.statusCode).toBe(409);
    const unknown = await app.inject({ method: 'POST', url: '/api/notifications/nope/resend', headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(unknown.statusCode).toBe(404);

    receiver.state.respond = () => 200;
    const resend = await app.inject({ method: 'POST', url: `/api/notifications/${id}/resend`, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(resend.statusCode).toBe(200);
    expect(resend.json()).toEqual({ id, status: 'pending' });
    await deliverAll();
    await settled(id, 'delivered');
    expect(receiver.forNotification(id).map((r) => r.status)).toEqual([503, 503, 503, 200]);
    // The receiver that had it already did not get it again.
    expect(other.forNotification(id)).toHaveLength(1);
  });

  it('an answer slower than the time-out is a failed attempt', async () => {
    const id = await newNotification();
    receiver.state.delayMs = 400;
    await deliverAll({ timeoutMs: 100, maxAttempts: 1 });
    const failed = await settled(id, 'failed');
    expect(failed.deliveries.find((d) => d.receiver === receiver.url)?.lastError).toBe('no answer within 100 ms');
  });

  it("a dead instance's claimed deliveries go out again once its short lease has run out, within seconds", async () => {
    const id = await newNotification();
    clock.now = Math.max(clock.now, Date.now());
    // An instance claims the deliveries and dies before sending them (kill -9): nothing renews its lease.
    const dead = await outbox.claimDue(store().db, { limit: 50, leaseMs: OUTBOX_DEFAULTS.leaseMs, nowMs: clock.now });
    expect(dead.map((claim) => claim.notification.id)).toContain(id);
    expect(OUTBOX_DEFAULTS.leaseMs).toBeLessThanOrEqual(10_000);
    const survivor = (at: number) => new OutboxWorker(store(), { secret: SECRET, now: () => at });
    expect(await survivor(clock.now + OUTBOX_DEFAULTS.leaseMs - 1).runOnce()).toBe(0);
    expect(await survivor(clock.now + OUTBOX_DEFAULTS.leaseMs).runOnce()).toBe(2);
    expect(receiver.forNotification(id).map((r) => r.status)).toEqual([200]);
    expect(other.forNotification(id).map((r) => r.status)).toEqual([200]);
    await settled(id, 'delivered');
  });

  it('a live worker renews its lease while a slow receiver answers: another instance does not send it again', async () => {
    const id = await newNotification();
    // The workers share a clock the test moves, and the sender's renewals run when the test steps them:
    // the lease's life is counted on that clock, whatever the machine's load.
    const at = { now: Math.max(clock.now, Date.now()) };
    const leaseMs = 3_000;
    const renewals: Array<{ everyMs: number; renew: () => Promise<void> }> = [];
    let stopped = 0;
    const scheduleRenewal = (everyMs: number, renew: () => Promise<void>) => {
      renewals.push({ everyMs, renew });
      return () => (stopped += 1);
    };
    let release!: () => void;
    receiver.state.hold = new Promise<void>((resolve) => (release = resolve));
    const sending = new OutboxWorker(store(), { secret: SECRET, leaseMs, now: () => at.now, scheduleRenewal }).runOnce();
    // Both receivers have the request and hold their answers: the sender waits.
    await waitFor(async () => (receiver.forNotification(id).length === 1 && other.forNotification(id).length === 1 ? true : undefined), 10_000, 'both requests');
    expect(renewals).toHaveLength(1);
    expect(renewals[0]!.everyMs).toBe(1_000);
    const otherInstance = new OutboxWorker(store(), { secret: SECRET, leaseMs, now: () => at.now });
    // Four leases long: every third of a lease the sender renews, and the other instance polls in between.
    for (let step = 0; step < 12; step += 1) {
      at.now += renewals[0]!.everyMs;
      await renewals[0]!.renew();
      expect(await otherInstance.runOnce()).toBe(0);
    }
    release();
    expect(await sending).toBe(2);
    expect(stopped).toBe(1);
    expect(receiver.forNotification(id)).toHaveLength(1);
    expect(other.forNotification(id)).toHaveLength(1);
    await settled(id, 'delivered');
    // Once sent, nothing is left for anyone to take, however late.
    at.now += 10 * leaseMs;
    expect(await otherInstance.runOnce()).toBe(0);
  });

  it('the management API needs the admin key', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/notifications' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ error: { code: 'admin_key_missing' } });
  });
});

it('backs off exponentially with jitter, capped', () => {
  expect(backoffDelay(1, 1000, 60_000, () => 0)).toBe(500);
  expect(backoffDelay(1, 1000, 60_000, () => 1)).toBe(1000);
  expect(backoffDelay(4, 1000, 60_000, () => 1)).toBe(8000);
  expect(backoffDelay(20, 1000, 60_000, () => 0.5)).toBe(45_000);
});
