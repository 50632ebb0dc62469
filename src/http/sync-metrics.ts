import { Gauge } from 'prom-client';
import type { SyncHealth } from '../sync/sync-health.js';
import type { MetricsCollector } from './metrics.js';

/**
 * Gauges of a sync source's recorded runs (dry runs aside), read at scrape time: when the last good run
 * ended (and how long ago), whether the newest run failed, and how many entries it skipped. A scrape while
 * the database is away leaves them out.
 */
export function syncMetricsCollector(health: () => Promise<SyncHealth>, now: () => number = Date.now): MetricsCollector {
  return (registry) => {
    const gauge = (name: string, help: string, read: (health: SyncHealth) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames: ['source'] as const,
        registers: [registry],
        async collect() {
          this.reset();
          const current = await health().catch(() => undefined);
          const value = current && read(current);
          if (current && value !== undefined) this.set({ source: current.source }, value);
        },
      });
    gauge('collab_host_sync_last_success_timestamp_seconds', 'When the newest sync run that did not fail ended (Unix time)', (h) =>
      h.lastGoodAt === undefined ? undefined : h.lastGoodAt / 1000,
    );
    gauge('collab_host_sync_last_success_age_seconds', 'Seconds since the newest sync run that did not fail ended', (h) =>
      h.lastGoodAt === undefined ? undefined : (now() - h.lastGoodAt) / 1000,
    );
    gauge('collab_host_sync_last_run_failed', '1 when the newest finished sync run failed, else 0', (h) => (h.last === undefined ? undefined : h.last.status === 'failed' ? 1 : 0));
    gauge('collab_host_sync_last_run_skipped_entries', 'Entries the newest finished sync run left out (GET /api/sync/runs lists them)', (h) => h.last?.skipped);
  };
}
