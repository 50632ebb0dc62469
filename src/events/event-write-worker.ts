import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../store/database.js';
import { inProcessBatchWriter } from './event-batch-writer.js';
import type { IncomingEvent, RecordResult } from './event-writer.js';

/** A batch to commit, from EventRecorder (through event-batch-writer). */
export type WriteRequest = { id: number; events: IncomingEvent[]; nowMs: number } | 'close';

export type WriteReply = { id: number; ok: true; results: RecordResult[] } | { id: number; ok: false; message: string };

/**
 * Worker thread: commits event batches to an SQLite file on its own connection, so the commit's disk
 * work does not stop the request thread. Batches arrive one at a time (the recorder waits for each).
 */
const { file, receivers } = workerData as { file: string; receivers: string[] };
const store = await openDatabase(`sqlite:${file}`);
const writer = inProcessBatchWriter(store, receivers);
const port = parentPort!;

let writing = Promise.resolve();

port.on('message', (request: WriteRequest) => {
  if (request === 'close') {
    void writing.then(() => store.close()).finally(() => port.close());
    return;
  }
  writing = writer.write(request.events, request.nowMs).then(
    (results) => port.postMessage({ id: request.id, ok: true, results } satisfies WriteReply),
    (error: unknown) => port.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) } satisfies WriteReply),
  );
});
