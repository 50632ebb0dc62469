import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';

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

type RequestLabels = { method: string; route: string; status: string };

/** One label set's counts: requests, their latency's sum and the bucket each fell in (the last: past every bound). */
interface Tally {
  readonly labels: RequestLabels;
  count: number;
  sum: number;
  readonly buckets: number[];
}

/**
 * The requests answered, tallied by route pattern, method and status in plain numbers: an answer adds to its
 * tally found through three map look-ups, with no labels object, label check or label hash (prom-client's
 * `inc` and `observe` made those twice per request, a few per cent of a cheap callback's CPU). `/metrics`
 * reads the tallies as prom-client's Counter and Histogram would show them (RequestCounter, RequestLatency).
 */
class RequestTallies {
  /** In the order first seen, as prom-client lists its label sets. */
  readonly all: Tally[] = [];
  private readonly byRoute = new Map<string, Map<string, Map<number, Tally>>>();

  add(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (byMethod === undefined) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let tally = byStatus.get(status);
    if (tally === undefined) {
      tally = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0) };
      byStatus.set(status, tally);
      this.all.push(tally);
    }
    tally.count += 1;
    tally.sum += seconds;
    let bound = 0;
    while (bound < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bound]!) bound += 1;
    tally.buckets[bound]! += 1;
  }

  reset(): void {
    this.all.length = 0;
    this.byRoute.clear();
  }
}

/** What a prom-client registry reads of a metric (prom-client's own metrics answer the same). */
interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Array<{ value: number; labels: Record<string, string | number>; metricName?: string; sharedLabels?: RequestLabels; exemplar?: null }>;
}

/** A metric read from the tallies: what a prom-client registry needs of it besides its values. */
abstract class TalliedMetric {
  readonly aggregator = 'sum';
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: MetricData['type'],
    protected readonly tallies: RequestTallies,
  ) {}

  protected data(values: MetricData['values']): MetricData {
    return { name: this.name, help: this.help, type: this.type, aggregator: 'sum', values };
  }

  reset(): void {
    this.tallies.reset();
  }
}

/** `collab_host_http_requests_total` from the tallies, as a prom-client Counter shows it. */
class RequestCounter extends TalliedMetric {
  constructor(tallies: RequestTallies) {
    super('collab_host_http_requests_total', 'HTTP requests answered, by method, route pattern and status', 'counter', tallies);
  }

  get(): Promise<MetricData> {
    return Promise.resolve(this.data(this.tallies.all.map((tally) => ({ value: tally.count, labels: { ...tally.labels } }))));
  }
}

/** `collab_host_http_request_duration_seconds` from the tallies, as a prom-client Histogram shows it. */
class RequestLatency extends TalliedMetric {
  constructor(tallies: RequestTallies) {
    super('collab_host_http_request_duration_seconds', 'Time from receiving a request to the end of its answer, by method, route pattern and status', 'histogram', tallies);
  }

  /** The exposition's form: each bucket's `le` first, then the request's labels (prom-client's `sharedLabels`). */
  getForPromString(): Promise<MetricData> {
    const values: MetricData['values'] = [];
    for (const tally of this.tallies.all) {
      const sharedLabels = tally.labels;
      let below = 0;
      LATENCY_BUCKETS.forEach((bound, index) => {
        below += tally.buckets[index]!;
        values.push({ labels: { le: bound }, value: below, metricName: `${this.name}_bucket`, sharedLabels, exemplar: null });
      });
      values.push(
        { labels: { le: '+Inf' }, value: tally.count, metricName: `${this.name}_bucket`, sharedLabels, exemplar: null },
        { labels: {}, value: tally.sum, metricName: `${this.name}_sum`, sharedLabels },
        { labels: {}, value: tally.count, metricName: `${this.name}_count`, sharedLabels },
      );
    }
    return Promise.resolve(this.data(values));
  }

  /** As JSON (`getMetricsAsJSON`): the labels in one object. */
  async get(): Promise<MetricData> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ sharedLabels, labels, ...value }) => ({ ...value, labels: { ...labels, ...sharedLabels } }));
    return data;
  }
}

/**
 * Counts every answered request and its latency by method, route pattern (`/files/:fileId`, never the
 * raw URL, so ids and query strings neither leak nor multiply the series; `unmatched` for a 404 without
 * a route) and status code.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: AppMetrics): void {
  const answered = requestMetrics(metrics.registry);
  app.addHook('onResponse', (request, reply, done) => {
    answered(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}

/** Registers the two request metrics; the function returned counts one answer (its latency in seconds). */
export function requestMetrics(registry: Registry): (method: string, route: string, status: number, seconds: number) => void {
  const tallies = new RequestTallies();
  registry.registerMetric(new RequestCounter(tallies) as unknown as Parameters<Registry['registerMetric']>[0]);
  registry.registerMetric(new RequestLatency(tallies) as unknown as Parameters<Registry['registerMetric']>[0]);
  return (method, route, status, seconds) => tallies.add(method, route, status, seconds);
}
