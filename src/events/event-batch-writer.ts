import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import type { OpenDatabase } from '../store/database.js';
import { writeEvents, type IncomingEvent, type RecordResult } from './event-writer.js';
import type { WriteReply, WriteRequest } from './event-write-worker.js';

/** Commits one batch of events with everything they derive, in one transaction. */
export interface EventBatchWriter {
  write(events: IncomingEvent[], nowMs: number): Promise<RecordResult[]>;
  close(): Promise<void>;
}

/**
 * The writer for this store. better-sqlite3 is synchronous: on the request thread a commit (its WAL
 * writes and fsync) would stop every request from being parsed meanwhile. So an SQLite file is written
 * by a worker thread with its own connection (WAL lets the request thread read beside it), and request
 * handling overlaps the commit. PostgreSQL is asynchronous already; an in-memory SQLite cannot be shared
 * with another connection; both write in process.
 */
export async function openEventBatchWriter(store: OpenDatabase, receivers: readonly string[]): Promise<EventBatchWriter> {
  const file = store.dialect === 'sqlite' ? await sqliteFile(store) : undefined;
  return file ? new WorkerBatchWriter(file, receivers) : inProcessBatchWriter(store, receivers);
}

export function inProcessBatchWriter(store: OpenDatabase, receivers: readonly string[]): EventBatchWriter {
  return {
    write: (events, nowMs) => store.db.transaction().execute((trx) => writeEvents(trx, events, receivers, nowMs)),
    close: async () => undefined,
  };
}

/** The main database's file, or undefined for an in-memory (or temporary) one. */
async function sqliteFile(store: OpenDatabase): Promise<string | undefined> {
  const { rows } = await sql<{ name: string; file: string }>`PRAGMA database_list`.execute(store.db);
  const file = rows.find((row) => row.name === 'main')?.file;
  return file ? file : undefined;
}

interface InFlight {
  resolve: (results: RecordResult[]) => void;
  reject: (error: Error) => void;
}

/** Sends batches to the event-write worker; one worker, started on first use and again after a crash. */
class WorkerBatchWriter implements EventBatchWriter {
  private worker: Worker | undefined;
  private readonly inFlight = new Map<number, InFlight>();
  private nextId = 1;

  constructor(
    private readonly file: string,
    private readonly receivers: readonly string[],
  ) {}

  write(events: IncomingEvent[], nowMs: number): Promise<RecordResult[]> {
    const worker = this.worker ?? this.start();
    const id = this.nextId++;
    return new Promise<RecordResult[]>((resolve, reject) => {
      this.inFlight.set(id, { resolve, reject });
      worker.ref(); // a commit under way keeps the process alive
      const request: WriteRequest = { id, events, nowMs };
      worker.postMessage(request);
    });
  }

  /** Lets the worker close its connection (after any batch it holds) and stop. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close' satisfies WriteRequest);
    await exited;
  }

  private start(): Worker {
    const worker = spawnWriteWorker({ file: this.file, receivers: [...this.receivers] });
    worker.on('message', (reply: WriteReply) => {
      const waiting = this.inFlight.get(reply.id);
      this.inFlight.delete(reply.id);
      if (this.inFlight.size === 0) worker.unref();
      if (!waiting) return;
      if (reply.ok) waiting.resolve(reply.results);
      else waiting.reject(new Error(reply.message));
    });
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined;
      for (const waiting of this.inFlight.values()) waiting.reject(error);
      this.inFlight.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the event writer stopped (exit code ${code})`)));
    worker.unref();
    this.worker = worker;
    return worker;
  }
}

/**
 * Starts event-write-worker beside this module. Run from TypeScript sources (tsx, vitest), the worker
 * registers tsx itself: loader hooks of the main thread do not reach worker threads on Node 20.
 */
function spawnWriteWorker(workerData: { file: string; receivers: string[] }): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = new URL(fromSources ? './event-write-worker.ts' : './event-write-worker.js', import.meta.url);
  if (!fromSources) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}
