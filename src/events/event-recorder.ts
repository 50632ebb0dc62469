import type { OpenDatabase } from '../store/database.js';
import { openEventBatchWriter, type EventBatchWriter } from './event-batch-writer.js';
import type { IncomingEvent, RecordResult } from './event-writer.js';

interface Pending {
  event: IncomingEvent;
  resolve: (result: RecordResult) => void;
  reject: (error: unknown) => void;
}

export interface EventRecorderOptions {
  /** Receivers of outgoing notifications (one delivery row each). */
  receivers: readonly string[];
  /** Most events per transaction. */
  maxBatch?: number;
  now?: () => number;
}

/**
 * Group commit: events that arrive while a transaction is being committed wait and go together into the
 * next one, so one durable commit (an fsync with SQLite's synchronous=FULL) serves many requests. Each
 * caller's promise settles only after the transaction holding its event has committed. With no
 * concurrency a batch is one event and nothing waits. When a batch fails, its events are retried one
 * by one, so one bad event cannot take the others down with it. The transaction itself runs where
 * event-batch-writer decides (a worker thread for an SQLite file), so new requests are parsed while it commits.
 */
export class EventRecorder {
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private readonly maxBatch: number;
  private readonly now: () => number;
  private writer: Promise<EventBatchWriter> | undefined;

  constructor(
    private readonly store: OpenDatabase,
    private readonly options: EventRecorderOptions,
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.now = options.now ?? Date.now;
  }

  /** Appends the event with its effects; resolves once committed. */
  record(event: IncomingEvent): Promise<RecordResult> {
    return new Promise<RecordResult>((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      // setImmediate lets the requests already parsed in this turn of the event loop join the batch.
      this.flushing ??= new Promise<void>((done) => setImmediate(done)).then(() => this.drain());
    });
  }

  /** Waits for every queued event to be committed (used on close). */
  async settle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Commits what is queued, then stops the writer. */
  async close(): Promise<void> {
    await this.settle();
    const writer = this.writer;
    this.writer = undefined;
    if (writer) await (await writer).close();
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        await this.commit(batch);
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private async commit(batch: Pending[]): Promise<void> {
    try {
      const results = await this.transaction(batch.map((item) => item.event));
      batch.forEach((item, index) => item.resolve(results[index] as RecordResult));
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
      for (const item of batch) {
        try {
          const [result] = await this.transaction([item.event]);
          item.resolve(result as RecordResult);
        } catch (single) {
          item.reject(single);
        }
      }
    }
  }

  private async transaction(events: IncomingEvent[]): Promise<RecordResult[]> {
    this.writer ??= openEventBatchWriter(this.store, this.options.receivers).catch((error: unknown) => {
      this.writer = undefined; // try again with the next batch
      throw error;
    });
    return (await this.writer).write(events, this.now());
  }
}
