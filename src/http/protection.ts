import rateLimit from '@fastify/rate-limit';
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyServerOptions, RouteOptions } from 'fastify';
import type { RateLimit, ServerLimitsConfig } from '../config/server-limits.js';
import { errorBody } from './error-handler.js';
import { HttpError } from './errors.js';

/**
 * Node's and Fastify's time-outs: a request must arrive whole within REQUEST_TIMEOUT and its headers
 * within HEADERS_TIMEOUT (answered 408 and closed, however slowly bytes trickle in), a connection
 * silent for CONNECTION_TIMEOUT while its request is handled is closed, and a kept-alive one idle between
 * requests for KEEP_ALIVE_TIMEOUT. Node checks the first two at `connectionsCheckingInterval`
 * (30 s by default, far too coarse): here a quarter of the headers time-out, at most one second.
 */
export function timeoutOptions(limits: ServerLimitsConfig): Pick<FastifyServerOptions, 'requestTimeout' | 'connectionTimeout' | 'keepAliveTimeout'> & { http: object } {
  return {
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.connectionTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
    },
  };
}

/** Routes never refused for load: the intake must keep storing events while it can, and the probes must answer. */
const OVERLOAD_EXEMPT: ReadonlySet<string> = new Set(['POST /events', 'GET /healthz', 'GET /readyz', 'GET /metrics']);

/**
 * Overload (@fastify/under-pressure): while the mean event-loop delay is past OVERLOAD_EVENT_LOOP_DELAY,
 * requests are answered 503 `overloaded` with Retry-After, except the routes in OVERLOAD_EXEMPT. The
 * delay is sampled every half bound (at most every second). Samples taken before the app was ready (and
 * one after) are ignored: they measure the start-up's own work (compiling schemas), not load. Registered
 * even when the bound is off (0): the sample feeds the metrics.
 */
export async function installOverloadProtection(app: FastifyInstance, limits: ServerLimitsConfig): Promise<OverloadState> {
  const bound = limits.overloadEventLoopDelayMs;
  const sampleInterval = bound > 0 ? Math.max(10, Math.min(1000, Math.floor(bound / 2))) : 1000;
  let readyAt = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    readyAt = performance.now();
  });
  const warmingUp = () => !(performance.now() - readyAt >= 2 * sampleInterval);
  await app.register(underPressure, {
    maxEventLoopDelay: bound,
    sampleInterval,
    pressureHandler: (request, reply, _type, value) => {
      if (warmingUp() || OVERLOAD_EXEMPT.has(`${request.method} ${request.routeOptions.url}`)) return undefined;
      reply.status(503).header('retry-after', String(limits.retryAfterSeconds));
      // A value returned here is sent as the answer (and the request goes no further); the plugin's
      // types allow only void, its code takes the value.
      return errorBody('overloaded', `the service is overloaded (event-loop delay ${describeDelay(value)} over the ${bound} ms bound); retry later`) as unknown as void;
    },
  });
  return {
    refusing: () =>
      bound > 0 && !warmingUp() && app.isUnderPressure() ? `overloaded: event-loop delay ${describeDelay(app.memoryUsage().eventLoopDelay)} over the ${bound} ms bound` : undefined,
    // under-pressure says Infinity when the loop was blocked for the whole sample: at least the sample's length.
    eventLoopDelayMs: () => {
      const delay = app.memoryUsage().eventLoopDelay;
      return Number.isFinite(delay) ? delay : sampleInterval;
    },
    eventLoopUtilization: () => app.memoryUsage().eventLoopUtilized,
  };
}

/** What the overload protection measures and decides, for /readyz and the metrics. */
export interface OverloadState {
  /** Why requests are refused now, or undefined. */
  refusing(): string | undefined;
  /** Mean event-loop delay over the last sample, in milliseconds. */
  eventLoopDelayMs(): number;
  /** Share of the last sample the event loop was busy, 0 to 1. */
  eventLoopUtilization(): number;
}

/** A sampled event-loop delay for people: under-pressure reports Infinity when the loop was blocked for the whole sample. */
export function describeDelay(ms: number | undefined): string {
  return ms !== undefined && Number.isFinite(ms) ? `${Math.round(ms)} ms` : 'past measure, the loop was blocked throughout the sample';
}

/** Clients (and groups) a limit follows at most; past it the oldest window is forgotten first. */
const MAX_LIMITED_KEYS = 10_000;

/**
 * @fastify/rate-limit's store, one for every route: its key is the client and the route's group, so a group
 * (the management API) counts per client across its routes. (The plugin's own store gives each route a
 * store of its own, which made RATE_LIMIT_MANAGE a limit per route.)
 */
class SharedWindowStore {
  private readonly windows = new Map<string, { current: number; startMs: number }>();

  incr(key: string, callback: (error: Error | null, result: { current: number; ttl: number }) => void, timeWindow: number): void {
    const nowMs = Date.now();
    let window = this.windows.get(key);
    if (window === undefined || window.startMs + timeWindow <= nowMs) {
      this.windows.delete(key);
      if (this.windows.size >= MAX_LIMITED_KEYS) this.windows.delete(this.windows.keys().next().value as string);
      window = { current: 0, startMs: nowMs };
      this.windows.set(key, window);
    }
    window.current += 1;
    callback(null, { current: window.current, ttl: window.startMs + timeWindow - nowMs });
  }

  child(): this {
    return this;
  }
}

/**
 * Rate limits (@fastify/rate-limit) per client address: token minting (POST /api/tokens) by
 * RATE_LIMIT_TOKENS, the rest of the management API (/api/…) by RATE_LIMIT_MANAGE. Past the limit: 429
 * `rate_limited` with Retry-After. Nothing else is limited, so the platform's callbacks never are. Call
 * before the routes are registered: the limit is attached to each route as it is added.
 */
export async function installRateLimits(app: FastifyInstance, limits: ServerLimitsConfig): Promise<void> {
  const limitFor = (route: RouteOptions): { limit: RateLimit; groupId: string } | undefined => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url === '/api/tokens' && methods.includes('POST')) return limits.tokenRateLimit && { limit: limits.tokenRateLimit, groupId: 'tokens' };
    if (route.url.startsWith('/api/') || route.url === '/api') return limits.manageRateLimit && { limit: limits.manageRateLimit, groupId: 'manage' };
    return undefined;
  };
  // Runs before the plugin's own onRoute hook (hooks run in the order added), which reads config.rateLimit.
  app.addHook('onRoute', (route) => {
    const chosen = limitFor(route);
    if (chosen) route.config = { ...route.config, rateLimit: { max: chosen.limit.max, timeWindow: chosen.limit.windowMs, groupId: chosen.groupId } } as typeof route.config;
  });
  await app.register(rateLimit, {
    global: false,
    store: SharedWindowStore,
    errorResponseBuilder: (_request, context) => new HttpError(context.statusCode, 'rate_limited', `too many requests: retry in ${context.after}`),
  });
}
