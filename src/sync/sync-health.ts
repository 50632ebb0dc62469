import type { SyncRunStore } from '../store/sync/sync-runs.js';
import type { SyncRunRow } from './sync-run-shape.js';

/** How a source's syncs are going, from its recorded runs (dry runs aside): what `/metrics` and `/readyz` tell. */
export interface SyncHealth {
  source: string;
  /** The newest finished run. */
  last: { id: number; status: string; endedAt: number; skipped: number; errors: string[] } | undefined;
  /** When the newest run that did not fail (ok or unchanged) ended: how old the directory as collab-host has it may be. */
  lastGoodAt: number | undefined;
}

/** Runs are read at most this often, however often they are asked for (probes and scrapes are frequent). */
const READ_TTL_MS = 5000;

/** The health of `source`'s syncs, read from the store at most every 5 s. A read that fails is not kept. */
export function syncHealthReader(runs: SyncRunStore, source: string, now: () => number = Date.now): () => Promise<SyncHealth> {
  let cached: { at: number; value: Promise<SyncHealth> } | undefined;
  return () => {
    if (!cached || now() - cached.at >= READ_TTL_MS) {
      const value = runs.latest(source).then(({ finished, good }) => healthOf(source, finished, good));
      cached = { at: now(), value };
      value.catch(() => (cached = undefined));
    }
    return cached.value;
  };
}

const endOf = (run: SyncRunRow) => Date.parse(run.startedAt) + (run.durationMs ?? 0);

function healthOf(source: string, finished: SyncRunRow | undefined, good: SyncRunRow | undefined): SyncHealth {
  return {
    source,
    last: finished && { id: finished.id, status: finished.status, endedAt: endOf(finished), skipped: finished.counts.skipped, errors: finished.errors },
    lastGoodAt: good && endOf(good),
  };
}

/**
 * One line for readiness: the age of the last good sync and what went wrong since, e.g. `last good sync 4m
 * ago (run 12); last run 2m ago failed: LDAP bind … failed`. Informational: a source that cannot be reached
 * does not make this instance unfit for traffic.
 */
export function describeSyncHealth(health: SyncHealth, now: number): string {
  const { last, lastGoodAt } = health;
  if (!last) return 'no sync yet';
  const good = lastGoodAt === undefined ? 'no good sync yet' : `last good sync ${age(now - lastGoodAt)} ago`;
  if (last.status === 'failed') return `${good}; last run (${last.id}) ${age(now - last.endedAt)} ago failed: ${last.errors.join('; ')}`;
  return `${good} (run ${last.id})${last.skipped > 0 ? `; it skipped ${last.skipped} ${last.skipped === 1 ? 'entry' : 'entries'} (GET /api/sync/runs lists them)` : ''}`;
}

/** `45s`, `12m`, `3h 5m`, `2d 4h`. */
function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h${minutes % 60 === 0 ? '' : ` ${minutes % 60}m`}`;
  return `${Math.floor(hours / 24)}d${hours % 24 === 0 ? '' : ` ${hours % 24}h`}`;
}
