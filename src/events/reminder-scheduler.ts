import { formatTime } from '../directory/time.js';
import type { OpenDatabase } from '../store/database.js';
import { enqueueNotifications } from './notification-writer.js';
import { PollingTask, SILENT_LOG, type TaskLog } from './polling-task.js';
import type { NotificationDraft } from './processors.js';

export interface ReminderSchedulerOptions {
  receivers: readonly string[];
  /** How often due reminders are looked for; well under the two seconds a reminder may be late. */
  pollMs?: number;
  batchSize?: number;
  log?: TaskLog;
  now?: () => number;
  /** Called after reminders fired (the server wakes the outbox worker with it). */
  onFired?: () => void;
}

/**
 * Turns each due reminder into exactly one `reminder.due` notification. The reminder's move to `fired`
 * and its notification commit together, so a crash fires it on the next start, never twice. On
 * PostgreSQL due rows are claimed `FOR UPDATE SKIP LOCKED`, so several instances share the work; on
 * SQLite the conditional UPDATE (still `scheduled`, still due) is the claim.
 */
export class ReminderScheduler {
  readonly name = 'reminder-scheduler';
  private readonly task: PollingTask;
  private readonly now: () => number;
  private readonly batchSize: number;

  constructor(
    private readonly store: OpenDatabase,
    private readonly options: ReminderSchedulerOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.batchSize = options.batchSize ?? 100;
    this.task = new PollingTask(this.name, () => this.runOnce().then((count) => count === this.batchSize), options.pollMs ?? 500, options.log ?? SILENT_LOG);
  }

  start(): this {
    this.task.start();
    return this;
  }

  stop(): Promise<void> {
    return this.task.stop();
  }

  /** Fires the reminders due now; returns how many fired. */
  async runOnce(): Promise<number> {
    const nowMs = this.now();
    const fired = await this.store.db.transaction().execute(async (trx) => {
      let due = trx
        .selectFrom('reminders')
        .select(['seq', 'id', 'file_id', 'author_id', 'content', 'remind_user_ids', 'remind_at', 'due_at_ms'])
        .where('status', '=', 'scheduled')
        .where('due_at_ms', '<=', nowMs)
        .orderBy('due_at_ms')
        .limit(this.batchSize);
      if (this.store.dialect === 'postgres') due = due.forUpdate().skipLocked();
      const rows = await due.execute();
      const drafts: (NotificationDraft & { eventId: null })[] = [];
      for (const row of rows) {
        const claimed = await trx
          .updateTable('reminders')
          .set({ status: 'fired', fired_at: formatTime(nowMs) })
          .where('seq', '=', row.seq)
          .where('status', '=', 'scheduled')
          .where('due_at_ms', '=', row.due_at_ms)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) !== 1) continue;
        drafts.push({
          type: 'reminder.due',
          occurredAt: row.remind_at,
          dedupeKey: `reminder:${row.file_id}:${row.id}:${row.due_at_ms}`,
          eventId: null,
          data: {
            reminderId: row.id,
            fileId: row.file_id,
            authorId: row.author_id,
            content: row.content,
            remindUserIds: JSON.parse(row.remind_user_ids) as string[],
            remindAt: row.remind_at,
          },
        });
      }
      await enqueueNotifications(trx, drafts, this.options.receivers, nowMs);
      return drafts.length;
    });
    if (fired > 0) this.options.onFired?.();
    return fired;
  }
}
