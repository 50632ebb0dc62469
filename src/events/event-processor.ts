import type { Kysely } from 'kysely';
import type { StoreDirectory } from '../directory/directory.js';
import type { DirectoryService } from '../directory/directory-service.js';
import { eventEffects } from '../store/events/event-effects.js';
import { eventLog, type FinishedEvent, type FinishedStep, type LoggedEvent } from '../store/events/event-log.js';
import { outbox, type NotificationDraft } from '../store/notify/outbox.js';
import type { Database } from '../store/schema/schema.js';
import { deriveCallbackFailure, deriveEffects, type EventEffects } from './derive-effects.js';
import { parseLoggedBody } from './event-fields.js';
import { readEvent, type Meaning, type ReadEvent } from './event-reader.js';
import type { EventCounters } from './event-stats.js';
import { MentionFanout, type FanoutRequest } from './mention-fanout.js';
import { PollingWorker, SILENT_LOG, type TaskLog } from './polling-task.js';
import { yieldToEventLoop } from '../shared/event-loop.js';
import type { NotificationRouter } from '../notify/routing.js';

export interface EventProcessorOptions {
  /** Receivers of outgoing notifications (one delivery row each). */
  receivers: readonly string[];
  /** Users one event may notify or remind (EVENT_MAX_FANOUT). */
  maxFanout: number;
  /** Events per processing transaction. */
  batchSize?: number;
  /** Batches processed side by side, each on its own share of the files (default: the store's, src/store/dialect/dialect-work.ts). */
  lanes?: number;
  /** How often the log is looked at when nothing woke the processor (events of other instances, restarts). */
  pollMs?: number;
  /**
   * How long a wake waits for more events to join the step (0: none): under load, one step (its reads, its
   * statements, its commit) then serves the events of several appends instead of each append's few.
   */
  gatherMs?: number;
  now?: () => number;
  log?: TaskLog;
  /** Called after a step that made notifications (the server wakes the outbox worker with it). */
  onNotified?: () => void;
  /** Counts what this processor finished, per kind. */
  counters?: EventCounters;
  /** Routes new notifications to channels and people (src/notify/routing.ts); absent: to `receivers` only. */
  router?: Pick<NotificationRouter, 'route'>;
}

/** What processing one event will do: its effects and the outcome it ends with. */
interface Plan {
  effects: EventEffects | undefined;
  finished: Omit<FinishedEvent, 'id'>;
}

/** Events per processing transaction, by default. */
const DEFAULT_BATCH = 500;
/** How long a wake waits for more events, by default (effects lag by up to this much more). */
const DEFAULT_GATHER_MS = 20;
/** A body this long (bytes of text) is parsed on a turn of the event loop of its own. */
const LARGE_BODY = 64 * 1024;
/** A problem text is kept to this length. */
const MAX_PROBLEM_LENGTH = 2000;

/**
 * Derives the effects of acknowledged events from the log, behind the acknowledgement: takes the oldest
 * pending events, reads each body again (the tolerant reader), bounds its fan-out, and applies its
 * effects and its outcome in one transaction per batch. So an effect is never lost (a crash before the
 * commit leaves the events pending) nor applied twice (the claim is conditional, and every effect is
 * keyed by its event). Events of one file are processed in the order they were logged; on PostgreSQL
 * several instances share the work file by file (src/store/dialect/dialect-work.ts).
 */
export class EventProcessor extends PollingWorker {
  private readonly now: () => number;
  private readonly batchSize: number;
  private readonly log: TaskLog;
  private readonly lanes: number;
  private readonly gatherMs: number;
  private gathering: ReturnType<typeof setTimeout> | undefined;
  /** Whether a lane of the last step took a whole batch: events are waiting beyond it. */
  private behind = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly directory: DirectoryService<StoreDirectory>,
    private readonly options: EventProcessorOptions,
  ) {
    super('event-processor', { pollMs: options.pollMs ?? 500, batchSize: options.batchSize ?? DEFAULT_BATCH, log: options.log ?? SILENT_LOG });
    this.now = options.now ?? Date.now;
    this.batchSize = options.batchSize ?? DEFAULT_BATCH;
    this.log = options.log ?? SILENT_LOG;
    this.lanes = options.lanes ?? eventLog.lanes(db);
    this.gatherMs = options.gatherMs ?? DEFAULT_GATHER_MS;
  }

  /**
   * Runs the next step once the events appended in the next `gatherMs` have joined the first that woke
   * it (the wakes in between change nothing): the step's fixed cost is shared by all of them.
   */
  override wake(): void {
    if (this.gatherMs <= 0) return super.wake();
    this.gathering ??= setTimeout(() => {
      this.gathering = undefined;
      super.wake();
    }, this.gatherMs);
    this.gathering.unref();
  }

  override async stop(): Promise<void> {
    clearTimeout(this.gathering);
    this.gathering = undefined;
    await super.stop();
  }

  /**
   * Processes one batch of pending events, in each lane while events wait beyond a batch, else in one;
   * returns how many this processor finished. The files are shared out between lanes
   * (src/store/dialect/dialect-work.ts: several on PostgreSQL and MySQL, one on SQLite), each lane in a
   * transaction of its own, so a file's events stay in one lane, in log order. Lanes overlap round trips
   * (a batch is mostly waiting for them, each behind the requests being served), but each has its own
   * claim, statements and commit: under a steady flow one lane takes everything gathered (four lanes at
   * every step cost 30-60% more CPU per event on PostgreSQL, bench/README.md "Lanes only for a
   * backlog"). A lane that came back full means a backlog, and the next steps run every lane until none does.
   */
  async runOnce(): Promise<number> {
    const lanes = this.behind ? this.lanes : 1;
    const steps = await Promise.all(Array.from({ length: lanes }, (_, index) => this.runLane({ index, of: lanes })));
    this.behind = steps.some((step) => step.full);
    return steps.reduce((sum, step) => sum + step.finished, 0);
  }

  private async runLane(lane: { index: number; of: number }): Promise<{ finished: number; full: boolean }> {
    const candidates = await eventLog.pending(this.db, this.batchSize, lane);
    if (candidates.length === 0) return { finished: 0, full: false };
    const reads = new Map<number, ReadEvent>();
    for (const event of candidates) {
      reads.set(event.id, readEvent(event.kind, parseLoggedBody(event.body)));
      if (event.body.length > LARGE_BODY) await yieldToEventLoop();
    }
    const fanout = new MentionFanout(this.directory, this.options.maxFanout);
    await fanout.prepare(candidates.flatMap((event) => fanoutRequest(event, reads.get(event.id)!)));
    const plans = new Map(candidates.map((event) => [event.id, this.plan(event, reads.get(event.id)!, fanout)]));
    let finished: FinishedEvent[];
    let heldBack = 0;
    try {
      ({ finished, heldBack } = await this.finish(candidates, plans));
    } catch (error) {
      // One event whose effects cannot be written must not hold up the others: each alone, then aside.
      this.log.error({ err: error, events: candidates.length }, 'event batch failed; processing its events one by one');
      finished = [];
      for (const event of candidates) {
        const step = await this.finishAlone(event, plans);
        finished.push(...step.finished);
        heldBack += step.heldBack;
      }
    }
    // Events left behind an earlier one of their file that this read missed: the next step takes them all.
    if (heldBack > 0) this.wake();
    const kinds = new Map(candidates.map((event) => [event.id, event.kind]));
    for (const event of finished) this.options.counters?.countProcessed(kinds.get(event.id) ?? '', event.outcome);
    if (finished.length > 0 && [...plans.values()].some((plan) => (plan.effects?.notifications.length ?? 0) > 0)) this.options.onNotified?.();
    return { finished: finished.length, full: candidates.length >= this.batchSize };
  }

  /** Processes until no event is pending (waiting for events another worker holds to be finished). */
  async drain(): Promise<void> {
    for (;;) {
      const finished = await this.runOnce();
      await yieldToEventLoop();
      if (finished === 0 && (await eventLog.pending(this.db, 1)).length === 0) return;
    }
  }

  private finish(candidates: readonly LoggedEvent[], plans: Map<number, Plan>): Promise<FinishedStep> {
    const nowMs = this.now();
    const planned = candidates.map((event) => ({ event, ...plans.get(event.id)!.finished }));
    return eventLog.finish(this.db, planned, nowMs, async (trx, claimed) => {
      const revisions: NonNullable<EventEffects['revision']>[] = [];
      const activity: EventEffects['activity'] = [];
      const notifications: NotificationDraft[] = [];
      const presence: NonNullable<EventEffects['presence']>[] = [];
      const versions: NonNullable<EventEffects['fileVersion']>[] = [];
      const reminders: Array<{ change: NonNullable<EventEffects['reminder']>; eventId: number }> = [];
      for (const event of claimed) {
        const effects = plans.get(event.id)?.effects;
        if (!effects) continue;
        // Reminder changes are applied in event order, over rows read once for the batch.
        if (effects.reminder) reminders.push({ change: effects.reminder, eventId: event.id });
        // Failure counts read what they change: one event at a time, in order (System events are few).
        if (effects.callbackFailure) await eventEffects.countCallbackFailure(trx, effects.callbackFailure, event.id);
        if (effects.presence) presence.push(effects.presence);
        if (effects.fileVersion) versions.push(effects.fileVersion);
        if (effects.revision) revisions.push(effects.revision);
        activity.push(...effects.activity);
        notifications.push(...effects.notifications);
      }
      await eventEffects.applyReminderChanges(trx, reminders, nowMs);
      await eventEffects.applyPresence(trx, presence);
      await eventEffects.advanceFileVersions(trx, versions);
      await eventEffects.addRevisions(trx, revisions);
      const routed = this.options.router ? await this.options.router.route(trx, notifications, nowMs) : notifications;
      // The notifications' own activity rows go in with the effects' (one statement).
      await outbox.enqueue(trx, routed, this.options.receivers, nowMs, activity);
    });
  }

  private async finishAlone(event: LoggedEvent, plans: Map<number, Plan>): Promise<FinishedStep> {
    try {
      return await this.finish([event], plans);
    } catch (error) {
      this.log.error({ err: error, eventId: event.id }, 'event effects could not be applied; the event is kept unprocessed');
      const problem = `its effects could not be applied: ${error instanceof Error ? error.message : String(error)}`;
      return eventLog.finish(this.db, [{ event, outcome: 'unprocessed', problem: problem.slice(0, MAX_PROBLEM_LENGTH) }], this.now(), async () => {});
    }
  }

  /** Works out the effects of an event read again from its body; no I/O. */
  private plan(event: LoggedEvent, read: ReadEvent, fanout: MentionFanout): Plan {
    const problems = [...read.problems];
    const notes: string[] = [];
    const ending = (effects: EventEffects | undefined): Plan => ({
      effects,
      finished: {
        outcome: problems.length > 0 || effects === undefined ? 'unprocessed' : 'processed',
        problem: [...problems, ...notes].join('; ').slice(0, MAX_PROBLEM_LENGTH) || null,
      },
    });
    const meaning = read.meaning;
    if (meaning === undefined) {
      if (problems.length === 0) problems.push('there is nothing collab-host can derive from it');
      return ending(undefined);
    }
    if (meaning.type === 'logged') return ending({ activity: [], notifications: [] });
    const receivedMs = event.receivedMs ?? Date.parse(event.receivedAt);
    if (meaning.type === 'callback-failure') return ending(deriveCallbackFailure(meaning, event.id, receivedMs));
    if (event.fileId === null) problems.push('it names no file (or a reminder collab-host cannot place on one file)');
    if (event.userId === null) problems.push('it names no acting user');
    if (event.fileId === null || event.userId === null) return ending(undefined);
    const bounded = boundFanout(meaning, event.fileId, fanout, notes);
    return ending(deriveEffects(bounded, { eventId: event.id, fileId: event.fileId, actorId: event.userId, receivedMs }));
  }
}

/** The users an event names to notify or remind, for the batch's fan-out lookups. */
function fanoutRequest(event: LoggedEvent, read: ReadEvent): FanoutRequest[] {
  const meaning = read.meaning;
  if (event.fileId === null || event.userId === null || !meaning) return [];
  const ids =
    meaning.type === 'comment' || meaning.type === 'mention' ? meaning.mentioned : meaning.type === 'reminder' && meaning.op !== 'remove' ? meaning.remindUserIds : undefined;
  return ids === undefined ? [] : [{ fileId: event.fileId, actorId: event.userId, ids }];
}

/** The meaning with its mentioned users and reminder recipients bounded (mention-fanout.ts). */
function boundFanout(meaning: Meaning, fileId: string, fanout: MentionFanout, notes: string[]): Meaning {
  const bound = (what: string, ids: readonly string[]) => {
    const result = fanout.bound(fileId, ids);
    const note = fanout.describe(what, new Set(ids).size, result);
    if (note) notes.push(note);
    return result.users;
  };
  if (meaning.type === 'comment' || meaning.type === 'mention') return { ...meaning, mentioned: bound('mentions', meaning.mentioned) };
  if (meaning.type === 'reminder' && meaning.op !== 'remove' && meaning.remindUserIds !== undefined) {
    return { ...meaning, remindUserIds: bound('reminder recipients', meaning.remindUserIds) };
  }
  return meaning;
}
