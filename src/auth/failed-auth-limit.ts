import type { RateLimit } from '../config/server-limits.js';

/** Clients followed at most; past it the oldest window is forgotten first. */
const MAX_CLIENTS = 10_000;

/**
 * Failed authentications per client (its address), one counter for the whole management surface: the
 * admin key on `/api`, console sessions and the console's sign-in. A client that failed `limit.max` times
 * within `limit.windowMs` is refused before its credential is even compared, until the window ends; a
 * success does not reset the count (a guesser holding one valid session gains nothing). Off (undefined
 * limit): nothing is counted.
 */
export class FailedAuthLimiter {
  private readonly windows = new Map<string, { startMs: number; failures: number }>();

  constructor(
    private readonly limit: RateLimit | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until `client` may try again; 0 when it may now. */
  blockedForMs(client: string): number {
    if (this.limit === undefined) return 0;
    const window = this.windows.get(client);
    if (window === undefined) return 0;
    const left = window.startMs + this.limit.windowMs - this.now();
    if (left <= 0) {
      this.windows.delete(client);
      return 0;
    }
    return window.failures >= this.limit.max ? left : 0;
  }

  recordFailure(client: string): void {
    if (this.limit === undefined) return;
    const nowMs = this.now();
    const window = this.windows.get(client);
    if (window !== undefined && window.startMs + this.limit.windowMs > nowMs) {
      window.failures += 1;
      return;
    }
    this.windows.delete(client);
    if (this.windows.size >= MAX_CLIENTS) this.windows.delete(this.windows.keys().next().value as string);
    this.windows.set(client, { startMs: nowMs, failures: 1 });
  }
}
