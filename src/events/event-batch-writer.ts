import type { OpenDatabase } from '../store/database.js';
import { writeEvents, type IncomingEvent, type RecordResult } from './event-writer.js';

/** Commits one batch of events with everything they derive, in one transaction. */
export interface EventBatchWriter {
  write(events: IncomingEvent[], nowMs: number): Promise<RecordResult[]>;
  close(): Promise<void>;
}

/**
 * The writer for this store: one transaction per batch on the store's own connection. (A worker thread
 * with its own SQLite connection was tried: in the benchmark it committed no more events per second and
 * cost a second V8 heap, about 40 MB, so the batch is written here.)
 */
export async function openEventBatchWriter(store: OpenDatabase, receivers: readonly string[]): Promise<EventBatchWriter> {
  return {
    write: (events, nowMs) => store.db.transaction().execute((trx) => writeEvents(trx, events, receivers, nowMs)),
    close: async () => undefined,
  };
}
