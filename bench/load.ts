import http from 'node:http';
import autocannon from 'autocannon';
import type { BenchRequest } from './scenarios.js';

/** An open-loop request not answered within this is counted as an error (and its socket closed). */
export const OPEN_LOOP_REQUEST_TIMEOUT_MS = 30_000;

/** What one route did in a run. */
export interface RouteFigures {
  route: string;
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** The non-2xx answers by status (e.g. 503 of the overload protection). */
  non2xxByStatus: Record<string, number>;
  errors: number;
}

/** The value below which `fraction` of the sorted values lie. */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] as number;
}

class Recorder {
  private readonly latencies: number[] = [];
  non2xx = 0;
  readonly non2xxByStatus: Record<string, number> = {};
  errors = 0;

  constructor(readonly route: string) {}

  record(ms: number, status: number): void {
    this.latencies.push(ms);
    if (status >= 200 && status < 300) return;
    this.non2xx += 1;
    this.non2xxByStatus[status] = (this.non2xxByStatus[status] ?? 0) + 1;
  }

  figures(seconds: number): RouteFigures {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const round = (ms: number) => Math.round(ms * 10) / 10;
    return {
      route: this.route,
      requests: sorted.length,
      requestsPerSecond: sorted.length / seconds,
      p50Ms: round(percentile(sorted, 0.5)),
      p99Ms: round(percentile(sorted, 0.99)),
      non2xx: this.non2xx,
      non2xxByStatus: { ...this.non2xxByStatus },
      errors: this.errors,
    };
  }
}

/**
 * An open loop: requests start at a fixed rate whatever the answers do, each timed from the moment it
 * was due (not from when it could be sent), so a slow answer shows in the latency of everything queued
 * behind it instead of slowing the load down. Sockets are kept alive and opened as needed.
 */
export async function openLoop(base: string, route: string, ratePerSecond: number, seconds: number, make: () => BenchRequest): Promise<RouteFigures> {
  const url = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
  const recorder = new Recorder(route);
  const interval = 1000 / ratePerSecond;
  const total = Math.round(ratePerSecond * seconds);
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let index = 0; index < total; index += 1) {
    const due = started + index * interval;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    inFlight.push(send(agent, url, make(), due, recorder));
  }
  await Promise.all(inFlight);
  agent.destroy();
  return recorder.figures(seconds);
}

function send(agent: http.Agent, url: URL, request: BenchRequest, due: number, recorder: Recorder): Promise<void> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (status: number | undefined) => {
      if (settled) return;
      settled = true;
      if (status === undefined) recorder.errors += 1;
      else recorder.record(performance.now() - due, status);
      resolve();
    };
    const outgoing = http.request(
      { agent, host: url.hostname, port: url.port, method: request.method, path: request.path, headers: request.headers, timeout: OPEN_LOOP_REQUEST_TIMEOUT_MS },
      (response) => {
        response.resume();
        response.on('end', () => settle(response.statusCode ?? 0));
        // A body cut off midway: an error (`close` comes without `end`).
        response.on('close', () => settle(undefined));
      },
    );
    // `timeout` only tells; the request is ended here, so an answer that never comes is an error, not a hang.
    outgoing.on('timeout', () => outgoing.destroy(new Error(`no answer within ${OPEN_LOOP_REQUEST_TIMEOUT_MS / 1000} s`)));
    outgoing.on('error', () => settle(undefined));
    outgoing.end(request.body);
  });
}

/** A route of a mixed run and its share of the requests. */
export interface MixedRoute {
  route: string;
  share: number;
  make: () => BenchRequest;
}

/**
 * A closed loop over several routes at once (autocannon, `connections` connections): each request picks
 * its route by share, and each route's latencies are kept apart (timed from building the request to its
 * answer), so one route's p99 under the others' load can be read.
 */
export async function mixedRun(base: string, routes: readonly MixedRoute[], connections: number, warmupSeconds: number, seconds: number): Promise<RouteFigures[]> {
  const total = routes.reduce((sum, route) => sum + route.share, 0);
  const pick = () => {
    let left = Math.random() * total;
    for (const route of routes) {
      left -= route.share;
      if (left < 0) return route;
    }
    return routes[routes.length - 1] as MixedRoute;
  };
  const run = async (duration: number, recorders?: Map<string, Recorder>) => {
    const requests: autocannon.Request[] = [
      {
        method: 'GET',
        setupRequest: (request, context) => {
          const route = pick();
          Object.assign(context, { route: route.route, started: performance.now() });
          return { ...request, ...route.make() };
        },
        onResponse: (status, _body, context) => {
          const { route, started } = context as { route: string; started: number };
          recorders?.get(route)?.record(performance.now() - started, status);
        },
      },
    ];
    const result = await autocannon({ url: base, connections, duration, requests });
    return result.errors + result.timeouts;
  };
  await run(warmupSeconds);
  const recorders = new Map(routes.map((route) => [route.route, new Recorder(route.route)]));
  const errors = await run(seconds, recorders);
  const figures = [...recorders.values()].map((recorder) => recorder.figures(seconds));
  // autocannon counts connection errors and time-outs for the whole run, not per route.
  if (figures[0]) figures[0].errors += errors;
  return figures;
}
