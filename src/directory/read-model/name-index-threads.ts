import { askThreadOnce } from '../../shared/one-answer-thread.js';
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
  /** Aborted: the indexes are no longer wanted (the model was closed); the thread stops and the build rejects. */
  signal?: AbortSignal;
  /**
   * A thread that has not answered by then is stopped and the indexes are built here (default 10 minutes;
   * the bench company's take about 4 s): a model never waits forever for a thread that hangs.
   */
  timeoutMs?: number;
}

const TIMEOUT_MS = 600_000;

/** The indexes built, and why the thread could not build them when it could not (they were built here then). */
export interface BuiltIndexes {
  indexes: NameIndex[];
  threadFailure?: unknown;
}

/**
 * The name indexes of `columns`, in order, built in a thread of their own (when they are many) so that
 * the caller's thread goes on meanwhile (a whole load of the read model reads the grants while the names
 * are indexed: on the bench company, seconds of each). The postings come back in one piece per index,
 * moved rather than copied. If the thread cannot be started, fails, stops, answers something else or
 * does not answer in time, they are built here instead: slower, the same indexes, with the reason as
 * `threadFailure`. Rejects only if that build fails too, or when `signal` is aborted.
 */
export async function buildInThread(columns: NameColumns[], options: ThreadOptions = {}): Promise<BuiltIndexes> {
  const entries = columns.reduce((sum, one) => sum + one.ids.length, 0);
  if (entries < (options.fromEntries ?? THREAD_FROM_ENTRIES)) return { indexes: buildHere(columns) };
  const outcome = await askThreadOnce(options.thread ?? THREAD, columns, {
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // No longer wanted (the model was closed while it loaded): nothing is built.
  if (!outcome.answered && outcome.aborted) throw outcome.failure;
  let failure: Error;
  if (outcome.answered) {
    try {
      const packed = outcome.answer as PackedPostings[];
      if (!Array.isArray(packed) || packed.length !== columns.length) throw new Error('the name index thread answered something other than one index per list');
      return { indexes: columns.map((one, position) => NameIndex.fromParts(one, packed[position]!)) };
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
    }
  } else failure = outcome.failure;
  return { indexes: buildHere(columns), threadFailure: failure };
}

function buildHere(columns: readonly NameColumns[]): NameIndex[] {
  return columns.map((one) => NameIndex.build(NameIndex.entriesOf(one)));
}
