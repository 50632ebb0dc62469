import type { Kysely } from 'kysely';
import type { RetentionConfig } from '../config/retention.js';
import { formatTime } from '../directory/time.js';
import { PollingTask, type TaskLog } from '../events/polling-task.js';
import { yieldToEventLoop } from '../shared/event-loop.js';
import { auditLog } from '../store/audit/audit-log.js';
import { noneRemoved, PRUNED_TABLES, retention, type PruneCounts, type PruneCutoffs } from '../store/retention/retention.js';
import type { Database } from '../store/schema/schema.js';

/** Rows one statement removes at most: short statements, so requests and event writes never wait long. */
export const PRUNE_BATCH_SIZE = 500;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export type RetentionWindows = Pick<RetentionConfig, 'eventsDays' | 'notificationsDays' | 'activityDays' | 'presenceHours' | 'auditDays'>;

export interface PrunerOptions {
  /** The clock (tests inject one). */
  now?: () => number;
  batchSize?: number;
}

/** The instants before which each table's rows go, at `nowMs`; a window of 0 keeps its table forever. */
export function cutoffsAt(windows: RetentionWindows, nowMs: number): PruneCutoffs {
  const before = (days: number) => (days > 0 ? formatTime(nowMs - days * DAY_MS) : undefined);
  return {
    ...optional('eventsBefore', before(windows.eventsDays)),
    ...optional('notificationsBefore', before(windows.notificationsDays)),
    ...optional('activityBefore', before(windows.activityDays)),
    ...optional('auditBefore', before(windows.auditDays)),
    ...optional('presenceBeforeMs', windows.presenceHours > 0 ? nowMs - windows.presenceHours * HOUR_MS : undefined),
  };
}

/**
 * Prunes what is older than the retention windows, in batches of `batchSize` rows per statement with the
 * event loop's other work in between. The background task (`serve`) and `collab-host prune` share it.
 */
export class Pruner {
  private readonly now: () => number;
  private readonly batchSize: number;
  /** Rows removed by this pruner since it was made, per table (metrics). */
  readonly removedTotal: PruneCounts = noneRemoved();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly windows: RetentionWindows,
    options: PrunerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.batchSize = options.batchSize ?? PRUNE_BATCH_SIZE;
  }

  /** What a full pass would remove now, per table; changes nothing. */
  preview(): Promise<PruneCounts> {
    return retention.countPrunable(this.db, cutoffsAt(this.windows, this.now()));
  }

  /** One batch of each table; `more` when a batch was full (there may be more to remove). */
  async step(cutoffs: PruneCutoffs = cutoffsAt(this.windows, this.now())): Promise<{ removed: PruneCounts; more: boolean }> {
    const removed = noneRemoved();
    const limit = this.batchSize;
    if (cutoffs.eventsBefore !== undefined) removed.events = await retention.pruneEvents(this.db, cutoffs.eventsBefore, limit);
    if (cutoffs.notificationsBefore !== undefined) {
      const done = await retention.pruneNotifications(this.db, cutoffs.notificationsBefore, limit);
      removed.notifications = done.notifications;
      removed.notification_deliveries = done.deliveries;
    }
    if (cutoffs.activityBefore !== undefined) removed.activity = await retention.pruneActivity(this.db, cutoffs.activityBefore, limit);
    if (cutoffs.presenceBeforeMs !== undefined) removed.presence = await retention.prunePresence(this.db, cutoffs.presenceBeforeMs, limit);
    if (cutoffs.auditBefore !== undefined) removed.audit_log = await auditLog.pruneBefore(this.db, cutoffs.auditBefore, limit);
    for (const table of PRUNED_TABLES) this.removedTotal[table] += removed[table];
    const more = removed.events >= limit || removed.notifications >= limit || removed.activity >= limit || removed.presence >= limit || removed.audit_log >= limit;
    return { removed, more };
  }

  /** Batches until nothing older than the windows (as of the start) is left; returns what went, per table. */
  async pruneAll(): Promise<PruneCounts> {
    const cutoffs = cutoffsAt(this.windows, this.now());
    const total = noneRemoved();
    for (;;) {
      const { removed, more } = await this.step(cutoffs);
      for (const table of PRUNED_TABLES) total[table] += removed[table];
      if (!more) return total;
      await yieldToEventLoop();
    }
  }
}

/**
 * The background pruning of `serve`: a pass every `intervalMs` (the first at start), batch after batch
 * while there is more, yielding between them (PollingTask). Logs what each pass removed.
 */
export function retentionTask(pruner: Pruner, intervalMs: number, log: TaskLog): PollingTask {
  let pass = noneRemoved();
  return new PollingTask(
    'retention',
    async () => {
      const { removed, more } = await pruner.step();
      for (const table of PRUNED_TABLES) pass[table] += removed[table];
      if (!more) {
        if (PRUNED_TABLES.some((table) => pass[table] > 0)) log.info({ removed: pass }, 'retention: pruned rows older than their windows');
        pass = noneRemoved();
      }
      return more;
    },
    intervalMs,
    log,
  );
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
