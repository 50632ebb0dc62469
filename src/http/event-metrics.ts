import { Counter, Gauge } from 'prom-client';
import type { AuditTrail } from '../audit/audit-trail.js';
import { KIND_RULES } from '../events/event-kinds.js';
import type { EventCounters, EventStats } from '../events/event-stats.js';
import type { PruneCounts } from '../store/retention/retention.js';
import type { MetricsCollector } from './metrics.js';

/** Store reads are shared by the scrapes of this window (as the store metrics). */
const STATS_TTL_MS = 5000;

/**
 * Anyone may push any kind (unknown kinds are stored for forward compatibility): as a label, only the
 * interface's kinds keep their name, so a sender cannot multiply the series.
 */
function kindLabel(kind: string): string {
  return Object.hasOwn(KIND_RULES, kind) ? kind : 'other';
}

/** Sums per-kind counts into the kind labels (several unknown kinds fold into `other`). */
function byLabel<O extends string>(counts: ReadonlyMap<string, Record<O, number>>): Map<string, Map<O, number>> {
  const folded = new Map<string, Map<O, number>>();
  for (const [kind, outcomes] of counts) {
    const label = kindLabel(kind);
    const into = folded.get(label) ?? new Map<O, number>();
    for (const [outcome, value] of Object.entries(outcomes) as Array<[O, number]>) into.set(outcome, (into.get(outcome) ?? 0) + value);
    folded.set(label, into);
  }
  return folded;
}

/**
 * The event pipeline on /metrics: intake per kind and outcome and processing outcomes (this process's
 * counters), events waiting and the age of the oldest, the effect lag (p50, p99 of the last 1000) and the
 * events refused or unprocessed in the log (the store, all instances). A scrape while the database is
 * away leaves the store-backed series out.
 */
export function eventMetricsCollector(counters: EventCounters, stats: () => Promise<EventStats>, now: () => number = Date.now): MetricsCollector {
  let last: { at: number; value: Promise<EventStats> } | undefined;
  const cached = () => {
    if (!last || now() - last.at >= STATS_TTL_MS) {
      const value = stats();
      last = { at: now(), value };
      value.catch(() => (last = undefined));
    }
    return last.value.catch(() => undefined);
  };
  return (registry) => {
    const registers = [registry];
    const perKind = <O extends string>(name: string, help: string, read: () => ReadonlyMap<string, Record<O, number>>) =>
      new Counter({
        name,
        help,
        labelNames: ['kind', 'outcome'] as const,
        registers,
        collect() {
          this.reset();
          for (const [kind, outcomes] of byLabel(read())) for (const [outcome, value] of outcomes) if (value > 0) this.inc({ kind, outcome }, value);
        },
      });
    perKind(
      'collab_host_events_received_total',
      'Events pushed to POST /events, by kind and what the intake answered (accepted, refused, duplicate, unauthenticated, malformed)',
      () => counters.intake,
    );
    perKind('collab_host_events_processed_total', 'Events whose effects this process derived, by kind and outcome (processed, unprocessed)', () => counters.processing);
    new Gauge({
      name: 'collab_host_events_waiting',
      help: 'Events acknowledged whose effects are not derived yet (outcome pending)',
      registers,
      async collect() {
        this.reset();
        const s = await cached();
        if (s) this.set(s.waiting.count);
      },
    });
    new Gauge({
      name: 'collab_host_events_oldest_waiting_age_seconds',
      help: 'Age of the oldest event waiting for its effects; 0 when none waits',
      registers,
      async collect() {
        this.reset();
        const s = await cached();
        if (s) this.set(s.waiting.oldestAgeMs / 1000);
      },
    });
    new Gauge({
      name: 'collab_host_event_effect_lag_seconds',
      help: 'Time from acknowledging an event to applying its effects, over the last 1000 processed events: percentile p50 and p99 (a gauge: Prometheus reserves the quantile label for summaries)',
      labelNames: ['percentile'] as const,
      registers,
      async collect() {
        this.reset();
        const s = await cached();
        if (s?.lag.p50Ms != null) this.set({ percentile: 'p50' }, s.lag.p50Ms / 1000);
        if (s?.lag.p99Ms != null) this.set({ percentile: 'p99' }, s.lag.p99Ms / 1000);
      },
    });
    new Gauge({
      name: 'collab_host_events_logged',
      help: 'Events in the log that call for attention, by outcome: refused (kept, not acted on) and unprocessed (re-process them after an upgrade)',
      labelNames: ['outcome'] as const,
      registers,
      async collect() {
        this.reset();
        const s = await cached();
        if (!s) return;
        this.set({ outcome: 'refused' }, s.log.refused);
        this.set({ outcome: 'unprocessed' }, s.log.unprocessed);
      },
    });
  };
}

/** The audit trail's buffer: entries recorded, written, dropped (buffer full) and waiting in memory. */
export function auditMetricsCollector(audit: AuditTrail): MetricsCollector {
  return (registry) => {
    new Counter({
      name: 'collab_host_audit_entries_total',
      help: 'Audit entries of this process by state: recorded (buffered), written to the store, dropped because the buffer was full',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [state, value] of Object.entries(audit.counts)) this.inc({ state }, value);
      },
    });
    new Gauge({
      name: 'collab_host_audit_buffered_entries',
      help: 'Audit entries held in memory, waiting for the next flush',
      registers: [registry],
      collect() {
        this.set(audit.buffered());
      },
    });
  };
}

/** Rows retention removed since this process started, per table. */
export function retentionMetricsCollector(removed: () => Readonly<PruneCounts>): MetricsCollector {
  return (registry) => {
    new Counter({
      name: 'collab_host_retention_removed_total',
      help: 'Rows the retention worker of this process removed as older than their window, per table',
      labelNames: ['table'] as const,
      registers: [registry],
      collect() {
        this.reset();
        for (const [table, value] of Object.entries(removed())) this.inc({ table }, value);
      },
    });
  };
}
