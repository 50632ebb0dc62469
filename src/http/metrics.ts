import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry } from 'prom-client';

/**
 * Adds metrics to the app's registry: create prom-client metrics with `registers: [registry]`; a gauge
 * whose value lives elsewhere reads it in its `collect()`, which runs at each scrape. Names start with
 * `collab_host_`. This is how any module adds its numbers to `/metrics` (never prom-client's global
 * registry, so several apps in one process, as in the tests, never collide).
 */
export type MetricsCollector = (registry: Registry) => void;

/** The app's own metrics registry (`AppContext.metrics`). */
export interface AppMetrics {
  readonly registry: Registry;
}

export function createAppMetrics(): AppMetrics {
  return Object.freeze({ registry: new Registry() });
}

/** The one way to add collectors to an app's `/metrics` (CONTRACTS.md, "Metrics"). */
export function addMetricsCollector(metrics: AppMetrics, ...collectors: MetricsCollector[]): void {
  for (const collector of collectors) collector(metrics.registry);
}

/** Upper bounds of the request latency buckets, in seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Counts every answered request and its latency by method, route pattern (`/files/:fileId`, never the
 * raw URL, so ids and query strings neither leak nor multiply the series; `unmatched` for a 404 without
 * a route) and status code.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: AppMetrics): void {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'collab_host_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames,
    registers: [metrics.registry],
  });
  const latency = new Histogram({
    name: 'collab_host_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its answer, by method, route pattern and status',
    labelNames,
    buckets: LATENCY_BUCKETS,
    registers: [metrics.registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
