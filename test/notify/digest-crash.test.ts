import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { notifyConfig } from '../../src/config/notify.js';
import { OutboxWorker } from '../../src/events/outbox-worker.js';
import { ChannelDispatcher } from '../../src/notify/dispatcher.js';
import { describeEachStore } from '../helpers/stores.js';
import { startReceiver } from '../events/webhook-receiver.js';
import { DOCUMENT_URL, notifyHarness } from './notify-fixtures.js';

const WINDOW_MS = 2 * 60_000;
const LEASE_MS = 60_000;
const ENV = { NOTIFY_DIGEST_WINDOW: '2m' };

describeEachStore('a digest killed between its sending and its recording', (store) => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let harness: Awaited<ReturnType<typeof notifyHarness>>;

  beforeAll(async () => {
    receiver = await startReceiver('digest-crash-secret');
    harness = await notifyHarness(store(), ENV);
    const response = await harness.api().put('/api/notification-channels/acme-hook', {
      kind: 'webhook',
      name: 'Acme hook',
      teamId: 'acme',
      personal: true,
      target: receiver.url,
      secret: 'digest-crash-secret',
    });
    expect(response.statusCode).toBe(201);
  });
  afterAll(async () => {
    await harness?.app.close();
    await receiver?.close();
  });

  /** An outbox worker of its own (one instance) on the harness's clock, with a long lease that runs out only when the clock says. */
  const instance = (batchSize = 50) => {
    const now = () => harness.clock.now;
    const dispatcher = new ChannelDispatcher(
      store().db,
      notifyConfig((name) => ENV[name as keyof typeof ENV], DOCUMENT_URL),
      { now, log: { info() {}, warn() {} } },
    );
    return new OutboxWorker(store(), { secret: undefined, now, channels: dispatcher, maxAttempts: 3, baseDelayMs: 1000, maxDelayMs: 60_000, leaseMs: LEASE_MS, batchSize });
  };
  const messages = () =>
    receiver.received.map((request) => {
      const body = request.body as { id: string; digest?: Array<{ id: string }> };
      return { key: String(request.headers['idempotency-key']), ids: (body.digest ?? [body]).map((item) => item.id).sort() };
    });

  it('is sent again as the same message, same members and key; mentions made since go under another key', async () => {
    await harness.comment('zhang', 'plan', '第一处 @韩梅梅', { userIds: ['hanmeimei'] });
    await harness.comment('lilei', 'plan', '第二处 @韩梅梅', { userIds: ['hanmeimei'] });
    harness.clock.now += WINDOW_MS;

    // Instance A claims the digest and sends it; the receiver accepts it, but A dies before it records
    // that: its answer is held until another instance has taken the deliveries over.
    let answer!: () => void;
    receiver.state.hold = new Promise<void>((resolve) => (answer = resolve));
    const killed = instance().runOnce();
    await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 30_000, interval: 20 });
    receiver.state.hold = undefined;
    const [first] = messages();
    expect(first!.ids).toHaveLength(2);

    // A third mention, and A's lease runs out: instance B re-claims.
    await harness.comment('zhang', 'plan', '第三处 @韩梅梅', { userIds: ['hanmeimei'] });
    harness.clock.now += Math.max(LEASE_MS, WINDOW_MS) + 1;
    await instance().runOnce();
    answer();
    await killed;

    // B's two messages go at once, in either order.
    const [, ...retaken] = messages();
    expect(retaken).toHaveLength(2);
    const again = retaken.find((message) => message.ids.length === 2);
    const later = retaken.find((message) => message.ids.length === 1);
    expect(again).toEqual(first); // the same message: a receiver that drops repeats by key sees it once
    expect(first!.ids).not.toContain(later!.ids[0]);
    expect(later!.key).not.toBe(first!.key);

    // All three are recorded delivered, each once, and nothing is left to send.
    const deliveries = (await harness.api().get('/api/notification-channels/acme-hook/deliveries?limit=50')).json() as { items: Array<{ status: string }> };
    expect(deliveries.items.map((item) => item.status)).toEqual(['delivered', 'delivered', 'delivered']);
    harness.clock.now += LEASE_MS + WINDOW_MS;
    expect(await instance().runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(3);
  });

  it('a re-claim that takes the message a delivery at a time still sends it whole, under its key', async () => {
    const before = receiver.received.length;
    await harness.comment('zhang', 'plan', '一 @李雷', { userIds: ['lilei'] });
    await harness.comment('zhang', 'plan', '二 @李雷', { userIds: ['lilei'] });
    harness.clock.now += WINDOW_MS;
    let answer!: () => void;
    receiver.state.hold = new Promise<void>((resolve) => (answer = resolve));
    const killed = instance().runOnce();
    await vi.waitFor(() => expect(receiver.received).toHaveLength(before + 1), { timeout: 30_000, interval: 20 });
    receiver.state.hold = undefined;

    harness.clock.now += LEASE_MS + 1;
    // One delivery a batch: the rest of its message is claimed with it.
    expect(await instance(1).runOnce()).toBe(1);
    answer();
    await killed;
    const [first, again, ...more] = messages().slice(before);
    expect(more).toEqual([]);
    expect(first!.ids).toHaveLength(2);
    expect(again).toEqual(first);
  });
});
