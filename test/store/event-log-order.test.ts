import { expect, it } from 'vitest';
import { eventLog, type LoggedEvent, type NewEvent } from '../../src/store/events/event-log.js';
import { newLogEvent } from '../events/event-fixtures.js';
import { describeEachStore } from '../helpers/stores.js';

const RECEIVED_MS = 1_709_280_000_000;

/** A pending Revision event on `fileId` (null: an event without a file), told apart by `tag`. */
const pendingEvent = (fileId: string | null, tag: string): NewEvent =>
  newLogEvent(`order-${tag}`, { kind: 'Revision', action: 'create', fileId, receivedMs: RECEIVED_MS, body: JSON.stringify({ tag }) });

/**
 * The processor applies the events of one file in the order they were logged (src/events/event-processor.ts).
 * The read of pending events may miss a file's oldest events (on PostgreSQL and MySQL a worker that held the
 * file can let it go while the read passes over them): the step that gets such a read must not apply the
 * newer events first.
 */
describeEachStore('finishing a step of event processing', (store) => {
  it('leaves a file whose earlier event is pending outside the step for a later step, and takes it whole then', async () => {
    const { db } = store();
    const tags = ['plan-1', 'plan-2', 'plan-3', 'sheet-1', 'none-1', 'none-2'];
    const files: Record<string, string | null> = { plan: 'plan', sheet: 'sheet', none: null };
    await eventLog.append(
      db,
      tags.map((tag) => pendingEvent(files[tag.split('-')[0]!]!, tag)),
    );
    const pending = await eventLog.pending(db, 10);
    const byTag = new Map(pending.map((event) => [(JSON.parse(event.body) as { tag: string }).tag, event]));
    const step = async (stepTags: string[]) => {
      const applied: string[] = [];
      const planned = stepTags.map((tag) => ({ event: byTag.get(tag)!, outcome: 'processed' as const, problem: null }));
      const finished = await eventLog.finish(db, planned, RECEIVED_MS + 1, async (_trx, claimed: LoggedEvent[]) => {
        applied.push(...claimed.map((event) => (JSON.parse(event.body) as { tag: string }).tag));
      });
      expect(finished.map((event) => event.id)).toEqual(applied.map((tag) => byTag.get(tag)!.id));
      return applied;
    };

    // A read that missed plan-1 and none-1: only the sheet's event is applied; the others stay pending.
    expect(await step(['plan-2', 'plan-3', 'sheet-1', 'none-2'])).toEqual(['sheet-1']);
    const left = await eventLog.pending(db, 10);
    expect(left.map((event) => event.id)).toEqual(['plan-1', 'plan-2', 'plan-3', 'none-1', 'none-2'].map((tag) => byTag.get(tag)!.id));

    // The next step reads them all, oldest first, and applies them in that order.
    expect(await step(['plan-1', 'plan-2', 'plan-3', 'none-1', 'none-2'])).toEqual(['plan-1', 'plan-2', 'plan-3', 'none-1', 'none-2']);
    expect(await eventLog.pending(db, 10)).toEqual([]);
  });

  it('applies the newer events of a file whose earlier ones another step finished already', async () => {
    const { db } = store();
    await eventLog.append(db, [pendingEvent('memo', 'memo-1'), pendingEvent('memo', 'memo-2'), pendingEvent('memo', 'memo-3')]);
    const [first, second, third] = await eventLog.pending(db, 10);
    const claim = (events: LoggedEvent[]) =>
      eventLog.finish(
        db,
        events.map((event) => ({ event, outcome: 'processed' as const, problem: null })),
        RECEIVED_MS + 1,
        async () => {},
      );
    expect((await claim([first!])).map((event) => event.id)).toEqual([first!.id]);
    // A read made before that step finished still lists memo-1: it is left out, memo-2 and memo-3 are applied.
    expect((await claim([first!, second!, third!])).map((event) => event.id)).toEqual([second!.id, third!.id]);
  });
});
