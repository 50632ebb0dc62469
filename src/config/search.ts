import { availableParallelism } from 'node:os';

/** How searches run (docs/scaling.md). */
export interface SearchConfig {
  /**
   * SEARCH_WORKERS: worker threads that answer searches on an SQLite file, each with its own read
   * connection and caches; 0 runs them on the main thread. Default: one per core beside the main
   * thread's, at least 1 and at most 4 (1 on a 2-core machine).
   * PostgreSQL ignores it (its queries do not hold the thread; run more instances instead).
   */
  readonly workers: number;
}

const MAX_WORKERS = 32;

/** The main thread keeps a core for HTTP, document opens and events; searches get the others. */
export function defaultWorkers(): number {
  return Math.max(1, Math.min(4, availableParallelism() - 1));
}

/** The search section of the configuration; `invalid` makes the error a malformed value throws. */
export function searchConfig(get: (name: string) => string | undefined, invalid: (message: string) => Error): SearchConfig {
  const given = get('SEARCH_WORKERS');
  if (given === undefined) return Object.freeze({ workers: defaultWorkers() });
  if (!/^\d+$/.test(given) || Number(given) > MAX_WORKERS) throw invalid(`SEARCH_WORKERS must be a whole number from 0 to ${MAX_WORKERS}`);
  return Object.freeze({ workers: Number(given) });
}
