import { withStoreQuery } from './store-reader.js';

/** The effect lag of the events a run logged, read from the store itself after the run. */
export interface EventLag {
  /** Events received in the run's window. */
  events: number;
  /** Of those with their effects applied: time from acknowledgement to effects (ms). */
  p50Ms: number;
  p99Ms: number;
  /** Events of the whole log still waiting for their effects when read. */
  waiting: number;
}

interface LagRow {
  received_ms: number | string;
  effects_ms: number | string | null;
  outcome: string;
}

const WINDOW = `SELECT received_ms, effects_ms, outcome FROM events WHERE received_ms >= $1 AND received_ms <= $2 AND outcome <> 'refused'`;
const WAITING = `SELECT count(*) AS n FROM events WHERE outcome = 'pending'`;

/**
 * Reads every event received between `fromMs` and `toMs` and the log's waiting count straight from the
 * store (any DATABASE_URL): exact figures over the whole run, not the last 1,000 events
 * that GET /api/events/stats keeps.
 */
export async function readEventLag(databaseUrl: string, fromMs: number, toMs: number): Promise<EventLag> {
  const { rows, waiting } = await withStoreQuery(databaseUrl, async (query) => ({
    rows: await query<LagRow>(WINDOW, [fromMs, toMs]),
    waiting: Number((await query<{ n: number | string }>(WAITING))[0]?.n ?? 0),
  }));
  const lags = rows
    .filter((row) => row.effects_ms !== null && row.outcome !== 'pending')
    .map((row) => Number(row.effects_ms) - Number(row.received_ms))
    .sort((a, b) => a - b);
  const at = (fraction: number) => (lags.length === 0 ? Number.NaN : (lags[Math.min(lags.length - 1, Math.floor(fraction * lags.length))] as number));
  return { events: rows.length, p50Ms: at(0.5), p99Ms: at(0.99), waiting };
}

/** As the report prints it. */
export function describeEventLag(lag: EventLag): string {
  return `p50 ${lag.p50Ms} ms, p99 ${lag.p99Ms} ms over ${lag.events} events; ${lag.waiting} waiting 5 s after`;
}
