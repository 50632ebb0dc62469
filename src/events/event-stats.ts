import type { Kysely } from 'kysely';
import { eventLog } from '../store/events/event-log.js';
import { outbox } from '../store/notify/outbox.js';
import { reminders } from '../store/events/reminders.js';
import type { Database } from '../store/schema/schema.js';
import { redactUrl } from '../shared/redaction.js';
import type { EventStats, IntakeOutcome, ProcessOutcome } from './listing-shapes.js';

/** How many recent effect lags the percentiles are taken over. */
export const LAG_SAMPLE = 1000;
/** A scheduled reminder due for longer than this is late (the scheduler fires within two seconds). */
export const REMINDER_LATE_MS = 2000;

export type { EventStats, IntakeOutcome, ProcessOutcome } from './listing-shapes.js';

/** Counters of this instance since it started (Prometheus counters: summed over instances, reset on restart). */
export class EventCounters {
  readonly intake = new Map<string, Record<IntakeOutcome, number>>();
  readonly processing = new Map<string, Record<ProcessOutcome, number>>();

  countIntake(kind: string, outcome: IntakeOutcome): void {
    const counts = this.intake.get(kind) ?? { accepted: 0, refused: 0, duplicate: 0, unauthenticated: 0, malformed: 0 };
    counts[outcome] += 1;
    this.intake.set(kind, counts);
  }

  countProcessed(kind: string, outcome: ProcessOutcome): void {
    const counts = this.processing.get(kind) ?? { processed: 0, unprocessed: 0 };
    counts[outcome] += 1;
    this.processing.set(kind, counts);
  }
}

/**
 * The event pipeline's figures, for the metrics, the console and `GET /api/events/stats`. Log, outbox and
 * reminder figures come from the store (all instances); intake and processing counters from `counters`
 * (this instance; absent in a command run outside the server).
 */
export async function eventStats(db: Kysely<Database>, counters?: EventCounters, nowMs: number = Date.now()): Promise<EventStats> {
  const [log, box, due] = await Promise.all([eventLog.figures(db, LAG_SAMPLE), outbox.figures(db), reminders.figures(db, nowMs, REMINDER_LATE_MS)]);
  const lags = [...log.recentLagsMs].sort((a, b) => a - b);
  const oldestOutbox = box.oldestPendingAt === null ? null : Date.parse(box.oldestPendingAt);
  return {
    intake: Object.fromEntries(counters?.intake ?? []),
    processing: Object.fromEntries(counters?.processing ?? []),
    log: log.counts,
    waiting: { count: log.counts.pending, oldestAgeMs: log.oldestPendingMs === null ? 0 : Math.max(0, nowMs - log.oldestPendingMs) },
    lag: { p50Ms: percentile(lags, 0.5), p99Ms: percentile(lags, 0.99), sample: lags.length },
    outbox: {
      pending: box.pending,
      oldestPendingAgeMs: oldestOutbox === null ? 0 : Math.max(0, nowMs - oldestOutbox),
      failedByReceiver: Object.fromEntries(Object.entries(box.failedByReceiver).map(([receiver, count]) => [redactUrl(receiver), count])),
    },
    reminders: due,
  };
}

/** The nearest-rank percentile of sorted values, or null when there are none. */
function percentile(sorted: readonly number[], fraction: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}
