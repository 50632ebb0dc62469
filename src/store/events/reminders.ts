import type { Kysely } from 'kysely';
import { formatTime } from '../../directory/time.js';
import { dialectWork } from '../dialect/dialect-work-for.js';
import { storableText } from '../statements/row-insert.js';
import type { Database, Db } from '../schema/schema.js';
import { inTailOrder, readTailPage, type TailPosition } from '../statements/tail-order.js';
import type { ReminderItem, ReminderStatus } from '../../events/listing-shapes.js';

export type { ReminderItem, ReminderStatus } from '../../events/listing-shapes.js';

/** A reminder that reached its time, claimed for firing. */
export interface DueReminder extends ReminderItem {
  dueAtMs: number;
}

export interface ReminderFigures {
  /** Scheduled reminders whose time has come. */
  due: number;
  /** Of those, the ones due for longer than the lateness threshold. */
  late: number;
}

/** Date reminders (DateMention): written by the event processor, fired by the scheduler. */
export interface ReminderStore {
  /**
   * In one transaction: claims up to `limit` scheduled reminders due at `nowMs` (several instances each
   * get others), marks them fired, and runs `fire` with them (it enqueues their notifications), so a
   * reminder is fired once: its move to fired and its notification commit together.
   */
  fireDue(db: Kysely<Database>, nowMs: number, limit: number, fire: (trx: Db, due: DueReminder[]) => Promise<void>): Promise<number>;
  /** Reminders in the order they were first seen, optionally of one file. */
  list(db: Db, filter: { fileId?: string; after?: TailPosition; limit: number }): Promise<{ items: ReminderItem[]; next: TailPosition | null }>;
  /** The files holding a reminder with this id. */
  filesWith(db: Db, reminderId: string): Promise<string[]>;
  /** Figures for the statistics: due now, and late by more than `lateMs`. */
  figures(db: Db, nowMs: number, lateMs: number): Promise<ReminderFigures>;
}

type ReminderRow = Pick<Database['reminders'], 'id' | 'file_id' | 'author_id' | 'content' | 'remind_user_ids' | 'remind_at' | 'status'>;

function toItem(row: ReminderRow): ReminderItem {
  return {
    id: row.id,
    fileId: row.file_id,
    authorId: row.author_id,
    content: row.content,
    remindUserIds: JSON.parse(row.remind_user_ids) as string[],
    remindAt: row.remind_at,
    status: row.status as ReminderStatus,
  };
}

export const reminders: ReminderStore = {
  async fireDue(db, nowMs, limit, fire) {
    return db.transaction().execute(async (trx) => {
      const due = trx
        .selectFrom('reminders')
        .select(['seq', 'id', 'file_id', 'author_id', 'content', 'remind_user_ids', 'remind_at', 'status', 'due_at_ms'])
        .where('status', '=', 'scheduled')
        .where('due_at_ms', '<=', nowMs)
        .orderBy('due_at_ms')
        .limit(limit);
      const rows = await dialectWork(trx).skipLocked(due).execute();
      const fired: DueReminder[] = [];
      for (const row of rows) {
        const claimed = await trx
          .updateTable('reminders')
          .set({ status: 'fired', fired_at: formatTime(nowMs) })
          .where('seq', '=', row.seq)
          .where('status', '=', 'scheduled')
          .where('due_at_ms', '=', row.due_at_ms)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) === 1) fired.push({ ...toItem(row), status: 'fired', dueAtMs: Number(row.due_at_ms) });
      }
      if (fired.length > 0) await fire(trx, fired);
      return fired.length;
    });
  },

  async list(db, filter) {
    let query = db.selectFrom('reminders').selectAll();
    if (filter.fileId !== undefined) query = query.where('file_id', '=', storableText(filter.fileId));
    const { shown, next } = await readTailPage(
      () =>
        inTailOrder(db, query, 'reminders', 'seq', filter.after)
          .limit(filter.limit + 1)
          .execute(),
      filter.limit,
      (row) => row.seq,
    );
    return { items: shown.map(toItem), next };
  },

  async filesWith(db, reminderId) {
    const rows = await db.selectFrom('reminders').select('file_id').where('id', '=', storableText(reminderId)).limit(10).execute();
    return rows.map((row) => row.file_id);
  },

  async figures(db, nowMs, lateMs) {
    const row = await db
      .selectFrom('reminders')
      .select([
        (eb) => eb.fn.countAll<number>().as('due'),
        (eb) =>
          eb.fn
            .sum<number>(
              eb
                .case()
                .when('due_at_ms', '<=', nowMs - lateMs)
                .then(1)
                .else(0)
                .end(),
            )
            .as('late'),
      ])
      .where('status', '=', 'scheduled')
      .where('due_at_ms', '<=', nowMs)
      .executeTakeFirstOrThrow();
    return { due: Number(row.due), late: Number(row.late ?? 0) };
  },
};
