import { afterEach, expect, it, vi } from 'vitest';
import { EventAppender } from '../../src/events/event-appender.js';
import { eventLog, type NewEvent } from '../../src/store/events/event-log.js';
import { describeEachStore } from '../helpers/stores.js';
import { newLogEvent, turns } from './event-fixtures.js';

const T = 1_709_280_000_000;

const event = (key: string): NewEvent => newLogEvent(`appender-${key}`, { receivedMs: T, body: JSON.stringify({ key }) });

describeEachStore('event appender: group commit', (store) => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('commits a lone event at once; while events come side by side, a batch waits 2 ms for more', async () => {
    // The store's own durable append, each batch it is given recorded.
    const batches: string[][] = [];
    const appender = new EventAppender((events) => {
      batches.push(events.map((item) => item.deliveryKey.slice('appender-'.length)));
      return eventLog.appendDurably(store().db, events);
    });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

    // Alone: acknowledged without any timer running.
    const lone = await appender.append(event('lone'));
    expect(lone).toEqual(expect.any(Number));

    // Two side by side: one batch, and the appender now expects company.
    const pair = await Promise.all([appender.append(event('a')), appender.append(event('b'))]);
    expect(pair.every((id) => typeof id === 'number')).toBe(true);

    // Three more, a turn apart, within the 2 ms: they wait, then share one commit.
    const later: Array<Promise<number | null>> = [];
    for (const key of ['c', 'd', 'e']) {
      later.push(appender.append(event(key)));
      await turns();
    }
    expect(batches).toEqual([['lone'], ['a', 'b']]);
    await vi.advanceTimersByTimeAsync(2);
    const ids = await Promise.all(later);
    expect(batches).toEqual([['lone'], ['a', 'b'], ['c', 'd', 'e']]);
    // Committed: each in the log under its id.
    for (const [index, key] of ['c', 'd', 'e'].entries()) expect((await eventLog.get(store().db, ids[index]!))?.body).toBe(JSON.stringify({ key }));
  });
});
