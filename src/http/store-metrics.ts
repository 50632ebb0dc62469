import { Gauge } from 'prom-client';
import { redactUrl } from '../shared/redaction.js';
import type { OperationsStats } from '../store/connection/operations-stats.js';
import type { MetricsCollector } from './metrics.js';

/** A scheduled reminder this long past its time counts as late. */
export const REMINDER_LATE_AFTER_MS = 60_000;
/** Store reads are shared by the scrapes of this window, so frequent scrapes cost the database nothing more. */
const STORE_READ_TTL_MS = 5000;

/**
 * Gauges read from the store at scrape time: directory sizes, the outbox, deliveries per receiver,
 * reminders due and late, the PostgreSQL pool. A scrape while the database is away leaves these series
 * out (the request metrics and /readyz say what is wrong) instead of failing the scrape.
 */
export function storeMetricsCollector(stats: OperationsStats, now: () => number = Date.now): MetricsCollector {
  const cached = <T>(read: () => Promise<T>) => {
    let last: { at: number; value: Promise<T> } | undefined;
    return () => {
      if (!last || now() - last.at >= STORE_READ_TTL_MS) {
        const value = read();
        last = { at: now(), value };
        value.catch(() => (last = undefined));
      }
      return last.value;
    };
  };
  const sizes = cached(() => stats.directorySizes());
  const outbox = cached(() => stats.outbox());
  const receivers = cached(() => stats.deliveriesByReceiver());
  const reminders = cached(() => stats.reminderBacklog(now(), REMINDER_LATE_AFTER_MS));

  return (registry) => {
    const registers = [registry];
    new Gauge({
      name: 'collab_host_directory_records',
      help: 'Records in the directory, by kind (users split into active and deactivated)',
      labelNames: ['kind'] as const,
      registers,
      async collect() {
        this.reset();
        const s = await sizes().catch(() => undefined);
        if (!s) return;
        for (const [kind, value] of Object.entries({
          teams: s.teams,
          departments: s.departments,
          users_active: s.activeUsers,
          users_deactivated: s.deactivatedUsers,
          files: s.files,
        })) {
          this.set({ kind }, value);
        }
      },
    });
    new Gauge({
      name: 'collab_host_outbox_pending_deliveries',
      help: 'Notification deliveries waiting to be sent or retried (one per notification and receiver)',
      registers,
      async collect() {
        this.reset();
        const o = await outbox().catch(() => undefined);
        if (o) this.set(o.pendingDeliveries);
      },
    });
    new Gauge({
      name: 'collab_host_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest notification not yet delivered to every receiver; 0 when none is pending',
      registers,
      async collect() {
        this.reset();
        const o = await outbox().catch(() => undefined);
        if (o) this.set(o.oldestPendingCreatedMs === null ? 0 : Math.max(0, (now() - o.oldestPendingCreatedMs) / 1000));
      },
    });
    const perReceiver = (name: string, help: string, pick: 'deliveries' | 'attempts') =>
      new Gauge({
        name,
        help,
        labelNames: ['receiver', 'status'] as const,
        registers,
        async collect() {
          this.reset();
          for (const row of (await receivers().catch(() => undefined)) ?? []) this.set({ receiver: redactUrl(row.receiver), status: row.status }, row[pick]);
        },
      });
    perReceiver('collab_host_outbox_deliveries', 'Notification deliveries in the store, by receiver and status (pending, delivered, failed = given up)', 'deliveries');
    perReceiver('collab_host_outbox_delivery_attempts', 'Delivery attempts made, by receiver and the status of their delivery', 'attempts');
    new Gauge({
      name: 'collab_host_reminders',
      help: `Scheduled reminders whose time has come and that have not fired: state="due" all of them, state="late" those more than ${REMINDER_LATE_AFTER_MS / 1000}s past it`,
      labelNames: ['state'] as const,
      registers,
      async collect() {
        this.reset();
        const r = await reminders().catch(() => undefined);
        if (!r) return;
        this.set({ state: 'due' }, r.due);
        this.set({ state: 'late' }, r.late);
      },
    });
    new Gauge({
      name: 'collab_host_db_pool_connections',
      help: 'PostgreSQL connection pool: state="max" its size, "open" connections, "idle" ones, "waiting" requests queued for one',
      labelNames: ['state'] as const,
      registers,
      collect() {
        this.reset();
        const pool = stats.poolSizes();
        if (!pool) return;
        this.set({ state: 'max' }, pool.max);
        this.set({ state: 'open' }, pool.total);
        this.set({ state: 'idle' }, pool.idle);
        this.set({ state: 'waiting' }, pool.waiting);
      },
    });
  };
}
