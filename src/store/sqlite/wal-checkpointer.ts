import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What one checkpoint did: frames in the write-ahead log, and how many of them are in the database file now. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** How often the write-ahead log is checkpointed, by default. */
export const CHECKPOINT_INTERVAL_MS = 1000;

/**
 * The worker's code: a connection of its own to the file that runs a passive checkpoint (which never
 * waits for readers or the writer) each time it is asked. Plain CommonJS, evaluated: no build step, no
 * loader, the same under tsx, vitest and dist/.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, result });
  } catch (error) {
    parentPort.postMessage({ ok: false, message: error && error.message ? String(error.message) : String(error) });
  }
});
`;

/**
 * Checkpoints an SQLite file's write-ahead log in a worker thread, so that copying the log's pages into
 * the database file and syncing both never holds the event loop. SQLite's automatic checkpoint runs in
 * the commit that crosses its threshold, on the connection that commits: on the main thread, every few
 * seconds under a stream of events, a burst of thousands of page writes and two syncs (tens of ms).
 * The main connection keeps a far higher threshold as a safety net (src/store/sqlite/open.ts), should
 * this thread ever stop.
 */
export class WalCheckpointer {
  private readonly worker: Worker;
  private readonly waiting: Array<{ resolve: (result: CheckpointResult) => void; reject: (error: Error) => void }> = [];
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  /** Why the thread stopped on its own (it could not open the file, or died), once it has. */
  private stopped: Error | undefined;
  private readonly exited: Promise<void>;

  constructor(path: string, intervalMs = CHECKPOINT_INTERVAL_MS) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver } });
    this.worker.unref();
    this.worker.on('message', (reply: { ok: true; result: CheckpointResult } | { ok: false; message: string }) => {
      const next = this.waiting.shift();
      if (this.waiting.length === 0 && !this.closed) this.worker.unref();
      if (!next) return;
      if (reply.ok) next.resolve(reply.result);
      else next.reject(new Error(`checkpoint failed: ${reply.message}`));
    });
    this.worker.on('error', (error) => {
      this.stopped ??= error;
      this.failAll(error);
    });
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        this.stopped ??= new Error('the checkpoint thread has stopped');
        this.failAll(this.stopped);
        resolve();
      }),
    );
    this.timer = setInterval(() => {
      // One at a time: a checkpoint still running is not asked again.
      if (this.waiting.length === 0 && this.stopped === undefined) this.checkpoint().catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  /** Runs a checkpoint now (after those asked before); what it did. */
  checkpoint(): Promise<CheckpointResult> {
    if (this.closed) return Promise.reject(new Error('the checkpoint thread is closed'));
    if (this.stopped) return Promise.reject(this.stopped);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      // Referenced while a checkpoint is asked for: the process waits for its answer.
      this.worker.ref();
      this.worker.postMessage('checkpoint');
    });
  }

  /** Stops the thread once the checkpoints asked for have run (its connection closed). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    // Held until it has exited: an unreferenced thread would let a process with nothing else to do end
    // before its connection is closed.
    this.worker.ref();
    if (this.stopped === undefined) this.worker.postMessage('close');
    await this.exited;
  }

  private failAll(error: Error): void {
    for (const waiting of this.waiting.splice(0)) waiting.reject(error);
  }
}
