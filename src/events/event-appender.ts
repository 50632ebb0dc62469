import type { NewEvent } from '../store/events/event-log.js';
import { yieldToEventLoop } from '../shared/event-loop.js';

/** How long a batch waits for more events under concurrent load, by default. */
const DEFAULT_GATHER_MS = 2;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Pending {
  event: NewEvent;
  resolve: (id: number | null) => void;
  reject: (error: unknown) => void;
}

/** Appends a batch of events in one transaction; for each, its id or null for a duplicate. */
export type AppendBatch = (events: NewEvent[]) => Promise<Array<number | null>>;

/**
 * Group commit: events that arrive while a transaction is being committed wait and go together into the
 * next one, so one durable commit (an fsync with SQLite's synchronous=FULL) serves many requests. Each
 * caller's promise settles only after the transaction holding its event has committed; nothing else is
 * written in it (the effects are derived from the log afterwards). With no concurrency a batch is one
 * event and nothing waits. When a batch fails, its events are retried one by one, so one bad event
 * cannot take the others down with it.
 */
export class EventAppender {
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly appendBatch: AppendBatch,
    private readonly options: {
      /** Most events per transaction. */
      maxBatch?: number;
      /** Called after each commit that logged new events (wakes the processor). */
      onAppended?: () => void;
      /**
       * While events come several at a time (the last batch held more than one), how long a batch waits for
       * more before it commits (default 2 ms; 0: a turn of the event loop only). A lone event never waits.
       */
      gatherMs?: number;
    } = {},
  ) {}

  /** Events of the last batch committed: more than one means requests are arriving side by side. */
  private lastBatch = 0;

  /** Appends the event; resolves with its id (null for a duplicate) once committed. */
  append(event: NewEvent): Promise<number | null> {
    return new Promise<number | null>((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      this.flushing ??= this.drain();
    });
  }

  /** Waits for every queued event to be committed (used on close). */
  async settle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        // Before each batch, a turn of the event loop: the requests that arrived (and those answered by
        // the last commit that come straight back) join it, instead of trickling into small commits. Under
        // concurrent load, a short wait more: each commit's fixed cost (statements, write-ahead log frames,
        // the sync) is shared by more events.
        const maxBatch = this.options.maxBatch ?? 500;
        const gatherMs = this.options.gatherMs ?? DEFAULT_GATHER_MS;
        if (gatherMs > 0 && this.lastBatch > 1 && this.queue.length < maxBatch) await sleep(gatherMs);
        else await yieldToEventLoop();
        const batch = this.queue.splice(0, maxBatch);
        this.lastBatch = batch.length;
        await this.commit(batch);
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    try {
      const ids = await this.appendBatch(batch.map((item) => item.event));
      batch.forEach((item, index) => item.resolve(ids[index] ?? null));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      for (const item of batch) {
        try {
          const [id] = await this.appendBatch([item.event]);
          item.resolve(id ?? null);
        } catch (single) {
          item.reject(single);
        }
      }
    }
    if (batch.length > 0) this.options.onAppended?.();
  }
}
