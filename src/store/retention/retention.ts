import { sql } from 'kysely';
import { auditLog } from '../audit/audit-log.js';
import type { Db } from '../schema/schema.js';

/** The tables retention prunes, in the order a pass visits them. */
export const PRUNED_TABLES = ['events', 'notifications', 'notification_deliveries', 'activity', 'presence', 'audit_log'] as const;
export type PrunedTable = (typeof PRUNED_TABLES)[number];
export type PruneCounts = Record<PrunedTable, number>;

/**
 * What is old enough to go: rows before these instants (interface time text, `YYYY-MM-DDThh:mm:ssZ`, or
 * epoch ms for presence); an absent cutoff keeps that table forever.
 */
export interface PruneCutoffs {
  eventsBefore?: string;
  notificationsBefore?: string;
  activityBefore?: string;
  presenceBeforeMs?: number;
  auditBefore?: string;
}

export function noneRemoved(): PruneCounts {
  return { events: 0, notifications: 0, notification_deliveries: 0, activity: 0, presence: 0, audit_log: 0 };
}

/**
 * The retention repository. What still has work to do is never pruned: pending events, events about a
 * scheduled reminder (its update or cancellation looks them up), notifications with a pending delivery.
 */
export const retention = {
  /** How many rows of each table a full pass would remove now (a dry run). */
  async countPrunable(db: Db, cutoffs: PruneCutoffs): Promise<PruneCounts> {
    const counts = noneRemoved();
    const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) => Number((await query.executeTakeFirstOrThrow()).n);
    if (cutoffs.eventsBefore !== undefined) {
      counts.events = await count(prunableEvents(db, cutoffs.eventsBefore).select((eb) => eb.fn.countAll<number>().as('n')));
    }
    if (cutoffs.notificationsBefore !== undefined) {
      const before = cutoffs.notificationsBefore;
      counts.notifications = await count(prunableNotifications(db, before).select((eb) => eb.fn.countAll<number>().as('n')));
      counts.notification_deliveries = await count(
        db
          .selectFrom('notification_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('notification_id', 'in', prunableNotifications(db, before).select('notifications.id')),
      );
    }
    if (cutoffs.activityBefore !== undefined) {
      counts.activity = await count(
        db
          .selectFrom('activity')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('occurred_at', '<', cutoffs.activityBefore),
      );
    }
    if (cutoffs.presenceBeforeMs !== undefined) {
      counts.presence = await count(
        db
          .selectFrom('presence')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('changed_ms', '<', cutoffs.presenceBeforeMs),
      );
    }
    if (cutoffs.auditBefore !== undefined) counts.audit_log = await auditLog.countBefore(db, cutoffs.auditBefore);
    return counts;
  },

  /** Removes the oldest prunable events, at most `limit`; returns how many. */
  async pruneEvents(db: Db, before: string, limit: number): Promise<number> {
    const ids = (await prunableEvents(db, before).select('events.id').orderBy('received_at').orderBy('events.id').limit(limit).execute()).map((row) => row.id);
    if (ids.length === 0) return 0;
    const result = await db.deleteFrom('events').where('id', 'in', ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Removes the oldest prunable notifications (at most `limit`) with their deliveries, in one transaction. */
  async pruneNotifications(db: Db, before: string, limit: number): Promise<{ notifications: number; deliveries: number }> {
    const work = async (trx: Db) => {
      const ids = (await prunableNotifications(trx, before).select('notifications.id').orderBy('created_at').orderBy('seq').limit(limit).execute()).map((row) => row.id);
      if (ids.length === 0) return { notifications: 0, deliveries: 0 };
      const deliveries = await trx.deleteFrom('notification_deliveries').where('notification_id', 'in', ids).executeTakeFirst();
      const notifications = await trx.deleteFrom('notifications').where('id', 'in', ids).executeTakeFirst();
      return { notifications: Number(notifications.numDeletedRows), deliveries: Number(deliveries.numDeletedRows) };
    };
    return db.isTransaction ? work(db) : db.transaction().execute(work);
  },

  /**
   * Removes the oldest activity before `before`, about `limit` rows: activity has no key, so a batch ends at
   * the time of its `limit`-th oldest row (rows sharing that second go with it).
   */
  async pruneActivity(db: Db, before: string, limit: number): Promise<number> {
    const edge = await db
      .selectFrom('activity')
      .select('occurred_at')
      .where('occurred_at', '<', before)
      .orderBy('occurred_at')
      .offset(limit - 1)
      .limit(1)
      .executeTakeFirst();
    const query = db.deleteFrom('activity');
    const result = await (edge ? query.where('occurred_at', '<=', edge.occurred_at) : query.where('occurred_at', '<', before)).executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Removes presence rows unchanged since before `beforeMs`, about `limit` rows (as activity). */
  async prunePresence(db: Db, beforeMs: number, limit: number): Promise<number> {
    const edge = await db
      .selectFrom('presence')
      .select('changed_ms')
      .where('changed_ms', '<', beforeMs)
      .orderBy('changed_ms')
      .offset(limit - 1)
      .limit(1)
      .executeTakeFirst();
    const result = await db
      .deleteFrom('presence')
      .where('changed_ms', edge ? '<=' : '<', edge ? Number(edge.changed_ms) : beforeMs)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};

function prunableEvents(db: Db, before: string) {
  return db
    .selectFrom('events')
    .where('received_at', '<', before)
    .where('outcome', '<>', 'pending')
    .where((eb) =>
      eb.or([
        eb('subject', 'is', null),
        eb(
          'subject',
          'not in',
          eb
            .selectFrom('reminders')
            .select(sql<string>`'reminder:' || reminders.id`.as('subject'))
            .where('reminders.status', '=', 'scheduled'),
        ),
      ]),
    );
}

function prunableNotifications(db: Db, before: string) {
  return db
    .selectFrom('notifications')
    .where('created_at', '<', before)
    .where('notifications.status', '<>', 'pending')
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('notification_deliveries as d').select('d.id').whereRef('d.notification_id', '=', 'notifications.id').where('d.status', '=', 'pending'))),
    );
}
