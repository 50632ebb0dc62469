import { Worker, type Transferable } from 'node:worker_threads';

export interface OneAnswerOptions {
  /** Not answered by then: the thread is stopped and the outcome says so. */
  timeoutMs: number;
  /** Aborted: the answer is no longer wanted (the outcome says `aborted`); the thread is stopped. */
  signal?: AbortSignal;
  /** Parts of `message` moved to the thread rather than copied. */
  transfer?: readonly Transferable[];
}

/** Why there is no answer when it was no longer wanted (`signal` aborted). */
export class AnswerNotWanted extends Error {
  constructor() {
    super('the answer was no longer wanted');
    this.name = 'AnswerNotWanted';
  }
}

/** The thread's first message, or why there is none. */
export type ThreadOutcome = { answered: true; answer: unknown } | { answered: false; aborted: boolean; failure: Error };

/**
 * Starts `thread`, sends it `message` and settles with its first answer, or with why there is none: it
 * could not be started (a limit of threads or memory, no such module), failed, stopped, did not answer
 * within `timeoutMs`, or was no longer wanted. Never rejects, and the thread is stopped either way: a
 * caller that needs the work done falls back to doing it itself, and never waits for a thread that hangs.
 */
export function askThreadOnce(thread: URL, message: unknown, options: OneAnswerOptions): Promise<ThreadOutcome> {
  return new Promise((resolve) => {
    let worker: Worker | undefined;
    let settled = false;
    const settle = (outcome: ThreadOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      void worker?.terminate().catch(() => undefined);
      resolve(outcome);
    };
    const fail = (failure: unknown, aborted = false) => settle({ answered: false, aborted, failure: failure instanceof Error ? failure : new Error(String(failure)) });
    const abort = () => fail(new AnswerNotWanted(), true);
    const timer = setTimeout(() => fail(new Error(`the thread did not answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    timer.unref();
    if (options.signal?.aborted) return abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      worker = new Worker(thread);
      worker.once('message', (answer: unknown) => settle({ answered: true, answer }));
      worker.once('error', (error) => fail(error));
      worker.once('exit', (code) => fail(new Error(`the thread stopped (exit code ${code}) before it answered`)));
      worker.postMessage(message, options.transfer);
    } catch (error) {
      fail(error);
    }
  });
}
