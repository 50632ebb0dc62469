import { Worker } from 'node:worker_threads';
import { NameIndex, type NameColumns, type PackedPostings } from './name-index.js';

/**
 * The thread's module. Compiled (dist/), the thread itself; from the TypeScript sources, an entry that
 * registers tsx first.
 */
const THREAD = import.meta.url.endsWith('.ts') ? new URL('./name-index-thread-entry.mjs', import.meta.url) : new URL('./name-index-thread.js', import.meta.url);

/**
 * Fewer entries than this in all are indexed here: a thread costs tens of milliseconds to start (more
 * from the TypeScript sources), and 20,000 names take about as long to index.
 */
const THREAD_FROM_ENTRIES = 20_000;

export interface ThreadOptions {
  /** The thread's module (tests: one that cannot start). */
  thread?: URL;
  /** Fewer entries than this in all are indexed on the calling thread (default 20,000). */
  fromEntries?: number;
}

/** The indexes built, and why the thread could not build them when it could not (they were built here then). */
export interface BuiltIndexes {
  indexes: NameIndex[];
  threadFailure?: unknown;
}

/**
 * The name indexes of `columns`, in order, built in a thread of their own (when they are many) so that
 * the caller's thread goes on meanwhile (a whole load of the read model reads the grants while the names
 * are indexed: on the bench company, seconds of each). The postings come back in one piece per index,
 * moved rather than copied. If the thread cannot be started, fails, stops or answers something else,
 * they are built here instead: slower, the same indexes. Rejects only if that build fails too.
 */
export function buildInThread(columns: NameColumns[], options: ThreadOptions = {}): Promise<BuiltIndexes> {
  const entries = columns.reduce((sum, one) => sum + one.ids.length, 0);
  if (entries < (options.fromEntries ?? THREAD_FROM_ENTRIES)) return Promise.resolve({ indexes: buildHere(columns) });
  return new Promise((resolve, reject) => {
    let worker: Worker | undefined;
    let settled = false;
    const settle = (outcome: () => BuiltIndexes) => {
      if (settled) return;
      settled = true;
      void worker?.terminate();
      try {
        resolve(outcome());
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const instead = (failure: unknown) => settle(() => ({ indexes: buildHere(columns), threadFailure: failure }));
    const answered = (packed: PackedPostings[]) => {
      let indexes: NameIndex[];
      try {
        if (!Array.isArray(packed) || packed.length !== columns.length) throw new Error('the name index thread answered something other than one index per list');
        indexes = columns.map((one, position) => NameIndex.fromParts(one, packed[position]!));
      } catch (error) {
        instead(error);
        return;
      }
      settle(() => ({ indexes }));
    };
    try {
      worker = new Worker(options.thread ?? THREAD);
      worker.once('message', answered);
      worker.once('error', instead);
      worker.once('exit', (code) => instead(new Error(`the name index thread stopped (exit code ${code}) before it answered`)));
      worker.postMessage(columns);
    } catch (error) {
      // The thread could not be made (a limit of threads or memory) or sent the names.
      instead(error);
    }
  });
}

function buildHere(columns: readonly NameColumns[]): NameIndex[] {
  return columns.map((one) => NameIndex.build(NameIndex.entriesOf(one)));
}
