/**
 * Per-receiver rate limits, in this process: a token bucket per key holding up to a minute's messages,
 * refilled continuously. Several instances each keep their own (docs/notifications.md).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; atMs: number }>();

  /** Takes one message's token: 0 when it may go now, else how many ms until it may. */
  take(key: string, perMinute: number, nowMs: number): number {
    const refillPerMs = perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: perMinute, atMs: nowMs };
    const tokens = Math.min(perMinute, bucket.tokens + Math.max(0, nowMs - bucket.atMs) * refillPerMs);
    if (tokens >= 1) {
      this.buckets.set(key, { tokens: tokens - 1, atMs: nowMs });
      return 0;
    }
    this.buckets.set(key, { tokens, atMs: nowMs });
    return Math.ceil((1 - tokens) / refillPerMs);
  }
}
