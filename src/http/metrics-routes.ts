import type { FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import { Type } from 'typebox';
import { bearerKeyCheck } from '../auth/bearer-key.js';
import { unauthorized } from './errors.js';
import { errorResponses } from './schemas.js';
import type { AppMetrics, MetricsCollector } from './metrics.js';
import type { OverloadState } from './protection.js';

/**
 * `GET /metrics`: the app's registry in the Prometheus text format. With METRICS_TOKEN set it needs
 * `Authorization: Bearer METRICS_TOKEN` (401 otherwise); without it, it is open (keep it off the public
 * network, or set the token).
 */
export async function metricsRoutes(app: FastifyInstance, options: { metrics: AppMetrics; metricsToken: string | undefined }): Promise<void> {
  const check = options.metricsToken === undefined ? undefined : bearerKeyCheck(options.metricsToken);
  app.get('/metrics', { schema: { hide: true, response: { 200: Type.String(), ...errorResponses(401) } } }, async (request, reply) => {
    if (check) {
      const result = check(request.headers.authorization);
      if (result === 'missing') throw unauthorized('/metrics needs Authorization: Bearer <METRICS_TOKEN>', 'metrics_token_missing');
      if (result === 'invalid') throw unauthorized('the metrics token is not valid', 'metrics_token_invalid');
    }
    reply.type(options.metrics.registry.contentType);
    return options.metrics.registry.metrics();
  });
}

/** Event-loop delay and utilisation (as the overload protection sampled them), resident and heap memory now. */
export function processMetricsCollector(load: Pick<OverloadState, 'eventLoopDelayMs' | 'eventLoopUtilization'>): MetricsCollector {
  return (registry) => {
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read());
        },
      });
    gauge(
      'collab_host_event_loop_delay_seconds',
      'Mean event-loop delay over the last sample (what the overload protection compares with OVERLOAD_EVENT_LOOP_DELAY)',
      () => load.eventLoopDelayMs() / 1000,
    );
    gauge('collab_host_event_loop_utilization_ratio', 'Share of the last sample the event loop was busy, 0 to 1', () => load.eventLoopUtilization());
    gauge('collab_host_process_resident_memory_bytes', 'Resident memory of the process', () => process.memoryUsage.rss());
    gauge('collab_host_process_heap_used_bytes', 'V8 heap in use', () => process.memoryUsage().heapUsed);
  };
}
