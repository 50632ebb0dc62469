import { expect, it } from 'vitest';
import { eventLog, type LoggedEvent, type NewEvent } from '../../src/store/events/event-log.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/schema/schema.js';
import { newLogEvent } from '../events/event-fixtures.js';
import { describeEachStore } from '../helpers/stores.js';

const RECEIVED_MS = 1_709_280_000_000;

/** A pending Revision event on `fileId` (null: an event without a file), told apart by `tag`. */
const pendingEvent = (fileId: string | null, tag: string): NewEvent =>
  newLogEvent(`order-${tag}`, { kind: 'Revision', action: 'create', fileId, receivedMs: RECEIVED_MS, body: JSON.stringify({ tag }) });

const tagOf = (event: LoggedEvent) => (JSON.parse(event.body) as { tag: string }).tag;

/**
 * Logs the events `tags` names (`file-n`; `fileOf` gives each tag's file), and returns a step as a processor
 * takes it: the tags of a read of pending events in, the tags whose effects it applied (in the order
 * applied) and how many it left for a later step out.
 */
async function logged(db: Kysely<Database>, tags: string[], fileOf: (tag: string) => string | null) {
  await eventLog.append(
    db,
    tags.map((tag) => pendingEvent(fileOf(tag), tag)),
  );
  // Only these events: the store is shared by the tests of its describe.
  const ours = new Set(tags);
  const byTag = new Map((await eventLog.pending(db, 1000)).filter((event) => ours.has(tagOf(event))).map((event) => [tagOf(event), event]));
  const step = async (read: string[]) => {
    const applied: string[] = [];
    const planned = read.map((tag) => ({ event: byTag.get(tag)!, outcome: 'processed' as const, problem: null }));
    const { finished, heldBack } = await eventLog.finish(db, planned, RECEIVED_MS + 1, async (_trx, claimed) => {
      applied.push(...claimed.map(tagOf));
    });
    expect(finished.map((event) => event.id)).toEqual(applied.map((tag) => byTag.get(tag)!.id));
    return { applied, heldBack };
  };
  const pendingOf = async () => (await eventLog.pending(db, 1000)).map(tagOf).filter((tag) => ours.has(tag));
  return { step, pendingOf };
}

/**
 * The processor applies the events of one file in the order they were logged (src/events/event-processor.ts).
 * The read of pending events may miss some of a file's events (on PostgreSQL and MySQL a worker that held the
 * file can let it go while the read passes over them): the step that gets such a read must not apply the
 * events after the one it missed.
 */
describeEachStore('finishing a step of event processing', (store) => {
  it("leaves a file's events after one the read missed for a later step, and that step takes them in order", async () => {
    const { step, pendingOf } = await logged(store().db, ['plan-1', 'plan-2', 'plan-3', 'sheet-1', 'none-1', 'none-2'], (tag) =>
      tag.startsWith('none') ? null : tag.split('-')[0]!,
    );
    // A read that missed plan-1 and none-1: only the sheet's event is applied; the others stay pending.
    expect(await step(['plan-2', 'plan-3', 'sheet-1', 'none-2'])).toEqual({ applied: ['sheet-1'], heldBack: 3 });
    expect(await pendingOf()).toEqual(['plan-1', 'plan-2', 'plan-3', 'none-1', 'none-2']);
    // The next step reads them all, oldest first, and applies them in that order.
    expect(await step(['plan-1', 'plan-2', 'plan-3', 'none-1', 'none-2'])).toEqual({ applied: ['plan-1', 'plan-2', 'plan-3', 'none-1', 'none-2'], heldBack: 0 });
    expect(await pendingOf()).toEqual([]);
  });

  it('applies the events before a missed one and leaves the rest (a read that missed one in the middle)', async () => {
    const { step, pendingOf } = await logged(store().db, ['deck-1', 'deck-2', 'deck-3', 'deck-4'], () => 'deck');
    expect(await step(['deck-1', 'deck-3', 'deck-4'])).toEqual({ applied: ['deck-1'], heldBack: 2 });
    expect(await pendingOf()).toEqual(['deck-2', 'deck-3', 'deck-4']);
    expect(await step(['deck-2', 'deck-3', 'deck-4'])).toEqual({ applied: ['deck-2', 'deck-3', 'deck-4'], heldBack: 0 });
  });

  it('counts an empty file id and no file id as one file', async () => {
    const { step, pendingOf } = await logged(store().db, ['blank-1', 'blank-2'], (tag) => (tag === 'blank-1' ? '' : null));
    expect(await step(['blank-2'])).toEqual({ applied: [], heldBack: 1 });
    expect(await pendingOf()).toEqual(['blank-1', 'blank-2']);
    expect(await step(['blank-1', 'blank-2'])).toEqual({ applied: ['blank-1', 'blank-2'], heldBack: 0 });
  });

  it('applies the newer events of a file whose earlier ones another step finished already', async () => {
    const { step, pendingOf } = await logged(store().db, ['memo-1', 'memo-2', 'memo-3'], () => 'memo');
    expect(await step(['memo-1'])).toEqual({ applied: ['memo-1'], heldBack: 0 });
    // A read made before that step finished still lists memo-1: it is left out, memo-2 and memo-3 are applied.
    expect(await step(['memo-1', 'memo-2', 'memo-3'])).toEqual({ applied: ['memo-2', 'memo-3'], heldBack: 0 });
    expect(await pendingOf()).toEqual([]);
  });
});
