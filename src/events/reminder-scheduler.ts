import type { OpenDatabase } from '../store/connection/database.js';
import { outbox } from '../store/notify/outbox.js';
import { reminders } from '../store/events/reminders.js';
import { PollingWorker, SILENT_LOG, type TaskLog } from './polling-task.js';
import type { NotificationRouter } from '../notify/routing.js';
import type { NotificationDraft } from '../store/notify/outbox.js';

export interface ReminderSchedulerOptions {
  receivers: readonly string[];
  /** How often due reminders are looked for; well under the two seconds a reminder may be late. */
  pollMs?: number;
  batchSize?: number;
  log?: TaskLog;
  now?: () => number;
  /** Called after reminders fired (the server wakes the outbox worker with it). */
  onFired?: () => void;
  /** Routes the reminders to the people reminded (src/notify/routing.ts); absent: to `receivers` only. */
  router?: Pick<NotificationRouter, 'route'>;
}

/**
 * Turns each due reminder into exactly one `reminder.due` notification. The reminder's move to `fired`
 * and its notification commit together, so a crash fires it on the next start, never twice; several
 * instances on PostgreSQL share the due reminders (src/store/events/reminders.ts).
 */
export class ReminderScheduler extends PollingWorker {
  private readonly now: () => number;
  private readonly batchSize: number;

  constructor(
    private readonly store: OpenDatabase,
    private readonly options: ReminderSchedulerOptions,
  ) {
    super('reminder-scheduler', { pollMs: options.pollMs ?? 500, batchSize: options.batchSize ?? 100, log: options.log ?? SILENT_LOG });
    this.now = options.now ?? Date.now;
    this.batchSize = options.batchSize ?? 100;
  }

  /** Fires the reminders due now; returns how many fired. */
  async runOnce(): Promise<number> {
    const nowMs = this.now();
    const fired = await reminders.fireDue(this.store.db, nowMs, this.batchSize, async (trx, due) => {
      const drafts = due.map((reminder): NotificationDraft => ({
        type: 'reminder.due',
        occurredAt: reminder.remindAt,
        dedupeKey: `reminder:${reminder.fileId}:${reminder.id}:${reminder.dueAtMs}`,
        eventId: null,
        data: {
          reminderId: reminder.id,
          fileId: reminder.fileId,
          authorId: reminder.authorId,
          content: reminder.content,
          remindUserIds: reminder.remindUserIds,
          remindAt: reminder.remindAt,
        },
      }));
      const routed = this.options.router ? await this.options.router.route(trx, drafts, nowMs) : drafts;
      await outbox.enqueue(trx, routed, this.options.receivers, nowMs);
    });
    if (fired > 0) this.options.onFired?.();
    return fired;
  }
}
