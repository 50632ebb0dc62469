import { ConfigError } from './config-error.js';
import { parseDurationMs, type EnvGetter } from './values.js';

/** At most `max` requests per client address in each `windowMs`. */
export interface RateLimit {
  readonly max: number;
  readonly windowMs: number;
}

/** What protects the server from slow clients, overload and floods (docs/operations.md, "Protection"). */
export interface ServerLimitsConfig {
  /** Longest time to receive a whole request, headers and body (REQUEST_TIMEOUT, default 30s). */
  readonly requestTimeoutMs: number;
  /** Longest time to receive a request's headers (HEADERS_TIMEOUT, default 10s). */
  readonly headersTimeoutMs: number;
  /** A connection with no traffic for this long while a request is handled is closed (CONNECTION_TIMEOUT, default 2m). */
  readonly connectionTimeoutMs: number;
  /** An idle kept-alive connection between requests is closed after this (KEEP_ALIVE_TIMEOUT, default 72s: above the usual load balancer's 60 s). */
  readonly keepAliveTimeoutMs: number;
  /** Event-loop delay past which requests get 503 (OVERLOAD_EVENT_LOOP_DELAY, default 1s; 0 = off). */
  readonly overloadEventLoopDelayMs: number;
  /** `Retry-After` of an overload or database-unavailable 503, in seconds (OVERLOAD_RETRY_AFTER, default 10s). */
  readonly retryAfterSeconds: number;
  /** The management API under /api (RATE_LIMIT_MANAGE, default 600/1m); undefined = off. */
  readonly manageRateLimit: RateLimit | undefined;
  /** Token minting, POST /api/tokens (RATE_LIMIT_TOKENS, default 60/1m); undefined = off. */
  readonly tokenRateLimit: RateLimit | undefined;
  /** Failed admin-key and console authentications per client before it is refused unchecked (RATE_LIMIT_AUTH_FAILURES, default 10/1m); undefined = off. */
  readonly authFailureLimit: RateLimit | undefined;
}

export function serverLimitsConfig(get: EnvGetter): ServerLimitsConfig {
  const requestTimeoutMs = parseDurationMs('REQUEST_TIMEOUT', get('REQUEST_TIMEOUT'), 30_000);
  const headersTimeoutMs = parseDurationMs('HEADERS_TIMEOUT', get('HEADERS_TIMEOUT'), Math.min(10_000, requestTimeoutMs));
  // Node refuses a headers time-out longer than the whole request's.
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('HEADERS_TIMEOUT must not be longer than REQUEST_TIMEOUT');
  return Object.freeze({
    requestTimeoutMs,
    headersTimeoutMs,
    connectionTimeoutMs: parseDurationMs('CONNECTION_TIMEOUT', get('CONNECTION_TIMEOUT'), 120_000),
    keepAliveTimeoutMs: parseDurationMs('KEEP_ALIVE_TIMEOUT', get('KEEP_ALIVE_TIMEOUT'), 72_000),
    overloadEventLoopDelayMs: parseDurationMs('OVERLOAD_EVENT_LOOP_DELAY', get('OVERLOAD_EVENT_LOOP_DELAY'), 1000, 0),
    retryAfterSeconds: Math.ceil(parseDurationMs('OVERLOAD_RETRY_AFTER', get('OVERLOAD_RETRY_AFTER'), 10_000, 1000) / 1000),
    manageRateLimit: parseRateLimit('RATE_LIMIT_MANAGE', get('RATE_LIMIT_MANAGE'), { max: 600, windowMs: 60_000 }),
    tokenRateLimit: parseRateLimit('RATE_LIMIT_TOKENS', get('RATE_LIMIT_TOKENS'), { max: 60, windowMs: 60_000 }),
    authFailureLimit: parseRateLimit('RATE_LIMIT_AUTH_FAILURES', get('RATE_LIMIT_AUTH_FAILURES'), { max: 10, windowMs: 60_000 }),
  });
}

/** `N/WINDOW` (`60/1m`, `5/10s`) or `off`. */
function parseRateLimit(name: string, value: string | undefined, fallback: RateLimit): RateLimit | undefined {
  if (value === undefined) return Object.freeze(fallback);
  if (/^off$/i.test(value)) return undefined;
  const match = /^(\d+)\s*\/\s*(\S+)$/.exec(value);
  const max = match ? Number(match[1]) : 0;
  if (!match || max < 1) throw new ConfigError(`${name} must be requests per window such as 60/1m, or off`);
  return Object.freeze({ max, windowMs: parseDurationMs(name, match[2], 0) });
}
