import { describe, expect, it } from 'vitest';
import { Counter, Histogram, Registry } from 'prom-client';
import { requestMetrics } from '../../src/http/metrics.js';

/** The two request metrics as prom-client's own Counter and Histogram showed them before the tallies. */
function promClientReference(registry: Registry) {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({ name: 'collab_host_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'collab_host_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its answer, by method, route pattern and status',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return (method: string, route: string, status: number, seconds: number) => {
    const labels = { method, route, status: String(status) };
    requests.inc(labels);
    latency.observe(labels, seconds);
  };
}

describe('the request metrics', () => {
  it('read at /metrics exactly as prom-client showed them: every bucket bound, the sum, the count, the series in order', async () => {
    const ours = new Registry();
    const reference = new Registry();
    const answered = requestMetrics(ours);
    const referenceAnswered = promClientReference(reference);
    // Latencies on and around every bound, past the last one, and the series in a mixed order.
    const latencies = [0, 0.0005, 0.001, 0.0010001, 0.0025, 0.003, 0.01, 0.07, 0.25, 0.9, 1, 2.5, 4, 10, 11, 120];
    const series: Array<[string, string, number]> = [
      ['GET', '/files/:fileId', 200],
      ['POST', '/users/batch/get', 200],
      ['GET', '/files/:fileId', 404],
      ['GET', 'unmatched', 404],
      ['HEAD', '/files/:fileId', 200],
    ];
    latencies.forEach((seconds, index) => {
      for (const [method, route, status] of series.slice(0, 1 + (index % series.length))) {
        answered(method, route, status, seconds);
        referenceAnswered(method, route, status, seconds);
      }
    });
    expect(await ours.metrics()).toBe(await reference.metrics());
    expect(await ours.getMetricsAsJSON()).toEqual(await reference.getMetricsAsJSON());
    const openMetrics = Registry.OPENMETRICS_CONTENT_TYPE as unknown as typeof Registry.PROMETHEUS_CONTENT_TYPE;
    ours.setContentType(openMetrics);
    reference.setContentType(openMetrics);
    expect(await ours.metrics()).toBe(await reference.metrics());
  });

  it('start over after a reset, as prom-client’s do', async () => {
    const ours = new Registry();
    const answered = requestMetrics(ours);
    answered('GET', '/files/:fileId', 200, 0.002);
    ours.resetMetrics();
    answered('GET', '/users/current/info', 200, 0.002);
    const text = await ours.metrics();
    expect(text).toContain('collab_host_http_requests_total{method="GET",route="/users/current/info",status="200"} 1');
    expect(text).not.toContain('/files/:fileId');
  });
});
