import { askThreadOnce } from '../shared/one-answer-thread.js';
import { HAN, type NameKeys } from './search-keys.js';

/** Compiled (dist/), the thread itself; from the TypeScript sources, an entry that registers tsx first. */
const THREAD = import.meta.url.endsWith('.ts') ? new URL('./name-keys-thread-entry.mjs', import.meta.url) : new URL('./name-keys-thread.js', import.meta.url);

/**
 * Fewer distinct Chinese names than this are left to the writer (a thread costs tens of milliseconds to
 * start and to load pinyin; 20,000 names take about 0.2 s).
 */
const THREAD_FROM_NAMES = 20_000;

export interface AheadOptions {
  /** The thread's module (tests: one that cannot start). */
  thread?: URL;
  /** Fewer distinct Chinese names than this get no thread (default 20,000). */
  fromNames?: number;
  /** Aborted: the keys are no longer wanted (the write was refused); the thread stops. */
  signal?: AbortSignal;
  /**
   * A thread that has not answered by then is stopped and the writer computes the keys (default 60 s; the
   * bench company's 250,000 names take about 3.5 s): the write waits for the keys under the directory's
   * write lock, and must not wait for a thread that hangs.
   */
  timeoutMs?: number;
  /** The thread could not give the keys (why): the writer computes them, slower; an operator may want to know. */
  onFailure?: (failure: Error) => void;
}

const TIMEOUT_MS = 60_000;

/**
 * The pinyin keys of `names`, computed in a thread of their own while the caller goes on: a bulk write
 * checks its records (seconds for a company) while the keys it will store are computed beside it, on the
 * other core. Resolves to undefined (never rejects) when there are too few names to be worth a thread, the
 * keys are no longer wanted, or the thread cannot start, fails, answers something else or not in time
 * (these said to `onFailure`): the writer then computes each key itself, as for any write (`nameKeys`),
 * and stores the same keys.
 */
export async function nameKeysAhead(names: Iterable<unknown>, options: AheadOptions = {}): Promise<Map<string, NameKeys> | undefined> {
  const distinct = new Set<string>();
  for (const name of names) if (typeof name === 'string' && HAN.test(name)) distinct.add(name);
  if (distinct.size < (options.fromNames ?? THREAD_FROM_NAMES)) return undefined;
  const list = [...distinct];
  const outcome = await askThreadOnce(options.thread ?? THREAD, list, {
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // Not wanted any more (the write was refused or is over): nothing to say.
  if (!outcome.answered && outcome.aborted) return undefined;
  const keys = outcome.answered ? keysOf(list, outcome.answer) : undefined;
  if (keys === undefined) options.onFailure?.(outcome.answered ? new Error('the pinyin thread answered something other than one line of keys per name') : outcome.failure);
  return keys;
}

/** The thread's answer as keys by name, or undefined when it is not one line of each key per name. */
function keysOf(names: readonly string[], answer: unknown): Map<string, NameKeys> | undefined {
  const { pinyin, initials } = (answer ?? {}) as { pinyin?: unknown; initials?: unknown };
  if (typeof pinyin !== 'string' || typeof initials !== 'string') return undefined;
  const pinyins = pinyin.split('\n');
  const firsts = initials.split('\n');
  if (pinyins.length !== names.length || firsts.length !== names.length) return undefined;
  const keys = new Map<string, NameKeys>();
  for (let index = 0; index < names.length; index += 1) keys.set(names[index]!, { pinyin: pinyins[index]!, initials: firsts[index]! });
  return keys;
}
