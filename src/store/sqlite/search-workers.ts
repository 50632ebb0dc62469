import { Worker } from 'node:worker_threads';
import type { DirectorySearch } from '../../directory/search-port.js';

/** What a search worker is started with. */
export interface SearchWorkerData {
  /** The SQLite file. */
  path: string;
}

type SearchMethod = keyof DirectorySearch;

/** One call of a batch: a method of the search port and its query. */
export interface SearchCall {
  method: SearchMethod;
  query: unknown;
}

export type SearchReply = { ok: true; value: unknown } | { ok: false; message: string };

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  /** Batches sent and not answered, by batch id. */
  inFlight: Map<number, Pending[]>;
}

/**
 * The worker's module. Compiled (dist/), it is the worker itself; run from the TypeScript sources (tests,
 * `npm run dev`), an entry that first registers tsx, since a worker thread does not inherit the main
 * thread's loader.
 */
const ENTRY = import.meta.url.endsWith('.ts') ? new URL('./search-worker-entry.mjs', import.meta.url) : new URL('./search-worker.js', import.meta.url);

/**
 * The search port answered by worker threads, each with its own read-only connection to the SQLite file
 * and its own caches, so a search never holds up the main thread (document opens, events) and searches
 * use the machine's other cores. The calls made in one synchronous run (the kinds of one POST /search)
 * travel as one message to the worker with the fewest batches in flight. A worker that dies fails its
 * batches in flight and is started again.
 */
export class SearchWorkers implements DirectorySearch {
  private readonly slots: Slot[] = [];
  private batch: { calls: SearchCall[]; pending: Pending[] } | undefined;
  private nextId = 1;
  private turn = 0;
  private closed = false;

  private constructor(
    private readonly data: SearchWorkerData,
    count: number,
  ) {
    for (let index = 0; index < count; index += 1) this.slots.push(this.start());
  }

  /** Starts `count` workers on the SQLite file and waits until each has opened it. */
  static async start(path: string, count: number): Promise<SearchWorkers> {
    const workers = new SearchWorkers({ path }, count);
    try {
      await Promise.all(workers.slots.map((slot) => slot.ready));
    } catch (error) {
      await workers.close();
      throw error;
    }
    return workers;
  }

  get size(): number {
    return this.slots.length;
  }

  searchTeamMembers = this.method('searchTeamMembers');
  searchCollaborators = this.method('searchCollaborators');
  searchRecentContacts = this.method('searchRecentContacts');
  searchDepartments = this.method('searchDepartments');
  searchReadableFiles = this.method('searchReadableFiles');

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private method<M extends SearchMethod>(method: M): DirectorySearch[M] {
    return ((query: unknown) => this.call(method, query)) as DirectorySearch[M];
  }

  private call(method: SearchMethod, query: unknown): Promise<never> {
    if (this.closed) return Promise.reject(new Error('the search workers are closed'));
    return new Promise((resolve, reject) => {
      if (!this.batch) {
        this.batch = { calls: [], pending: [] };
        queueMicrotask(() => this.flush());
      }
      this.batch.calls.push({ method, query });
      this.batch.pending.push({ resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = undefined;
    if (!batch) return;
    const slot = this.leastBusy();
    const id = this.nextId++;
    slot.inFlight.set(id, batch.pending);
    slot.worker.postMessage({ id, calls: batch.calls });
  }

  private leastBusy(): Slot {
    this.turn = (this.turn + 1) % this.slots.length;
    let best = this.slots[this.turn] as Slot;
    for (const slot of this.slots) if (slot.inFlight.size < best.inFlight.size) best = slot;
    return best;
  }

  private start(): Slot {
    const worker = new Worker(ENTRY, { workerData: this.data });
    const slot: Slot = { worker, inFlight: new Map(), ready: Promise.resolve() };
    let started = false;
    let failed = false;
    slot.ready = new Promise((resolve, reject) => {
      worker.on('message', (message: { ready?: true; id?: number; replies?: SearchReply[] }) => {
        if (message.ready) {
          started = true;
          return resolve();
        }
        const pending = slot.inFlight.get(message.id as number);
        slot.inFlight.delete(message.id as number);
        message.replies?.forEach((reply, index) => {
          const waiting = pending?.[index];
          if (reply.ok) waiting?.resolve(reply.value);
          else waiting?.reject(new Error(`search worker: ${reply.message}`));
        });
      });
      const fail = (error: Error) => {
        if (failed) return;
        failed = true;
        reject(error);
        for (const pending of slot.inFlight.values()) for (const waiting of pending) waiting.reject(error);
        slot.inFlight.clear();
        // A worker that ran and died is replaced; one that could not start is not retried in a loop.
        const index = this.slots.indexOf(slot);
        if (!this.closed && started && index >= 0) this.slots[index] = this.start();
      };
      worker.once('error', fail);
      worker.once('exit', (code) => {
        if (!this.closed) fail(new Error(`search worker exited with code ${code}`));
      });
    });
    // Nobody awaits a replacement's start; a failure shows in the batches it fails.
    slot.ready.catch(() => undefined);
    return slot;
  }
}
