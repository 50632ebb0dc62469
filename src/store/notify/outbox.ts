import { dialectOf } from '../dialect/dialect.js';
import { createHash, randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import { formatTime } from '../../directory/time.js';
import { dialectWork } from '../dialect/dialect-work-for.js';
import { eventEffects, type ActivityRow } from '../events/event-effects.js';
import { insertNewTypedRows, insertRows, storableText, type RowTable } from '../statements/row-insert.js';
import type { Database, Db } from '../schema/schema.js';
import { inTailOrder, readTailPage, type TailPosition } from '../statements/tail-order.js';
import type { NotificationItem, NotificationStatus } from '../../events/listing-shapes.js';

/** A notification to put in the outbox. */
export interface NotificationDraft {
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
  /** One fact is notified once, however many events (or re-processings) report it. */
  dedupeKey: string;
  /** The event it comes from (added to `data` as `eventId`); null for a due reminder. */
  eventId: number | null;
  /** Activity written only when this notification is new (so a deduplicated mention counts once). */
  activity?: ActivityRow;
  /** Its deliveries, when routed (src/notify/routing.ts); absent: one to each of the common receivers. */
  deliveries?: readonly PlannedDelivery[];
}

/** One delivery a routed notification gets: a receiver, the person it is for, and when it is due. */
export interface PlannedDelivery {
  receiver: string;
  /** The user a personal notice is for; null or absent: the receiver as a whole. */
  recipient?: string | null;
  /** Due later than its making (a digest window); absent: at once. */
  dueMs?: number;
}

/** One claimed delivery: a notification for one receiver, with the attempt number it is on. */
export interface ClaimedDelivery {
  deliveryId: number;
  claimToken: string;
  receiver: string;
  /** The user a personal notice is for; null: the receiver as a whole. */
  recipient: string | null;
  attempt: number;
  /** The digest message it is fixed in (its idempotency key), from its first claim; null: none yet. */
  messageKey: string | null;
  notification: { id: string; type: string; occurredAt: string; data: unknown };
}

export type DeliveryOutcome =
  | { status: 'delivered'; nowMs: number }
  | { status: 'pending'; nextAttemptMs: number; error: string }
  | { status: 'failed'; error: string }
  /** Not attempted (a rate limit, a receiver in back-off): due again at `nextAttemptMs`, the attempt not counted. */
  | { status: 'deferred'; nextAttemptMs: number };

export type { NotificationItem, NotificationStatus } from '../../events/listing-shapes.js';

export interface OutboxFigures {
  /** Deliveries waiting to be sent (or retried). */
  pending: number;
  /** When the oldest notification with a pending delivery was made, or null. */
  oldestPendingAt: string | null;
  /** Deliveries that failed for good, per receiver. */
  failedByReceiver: Record<string, number>;
}

/** The outbox of outgoing notifications: one notification row, one delivery per receiver. */
export interface OutboxStore {
  /**
   * Puts notifications in the outbox with one pending delivery per receiver (without receivers a
   * notification is recorded as delivered to nobody). A draft whose dedupe key is present is skipped
   * with its activity. `activity`: other activity rows of the same step, written in the same statement as
   * the notifications' own. Returns the new notifications' ids.
   */
  enqueue(db: Db, drafts: readonly NotificationDraft[], receivers: readonly string[], nowMs: number, activity?: readonly ActivityRow[]): Promise<string[]>;
  /**
   * Claims due pending deliveries: each claimed row's next attempt moves `leaseMs` ahead (a worker that
   * dies mid-send is replaced after the lease) and its attempt count goes up, in one transaction.
   */
  claimDue(db: Kysely<Database>, options: { limit: number; leaseMs: number; nowMs: number }): Promise<ClaimedDelivery[]>;
  /** Extends the claim `claimToken` holds on its deliveries still pending (a lease renewal) to `untilMs`. */
  renewClaims(db: Db, claimToken: string, untilMs: number): Promise<void>;
  /** Records how an attempt went (only while the claim is still this worker's), then the notification's summary. */
  recordAttempt(db: Kysely<Database>, claim: ClaimedDelivery, outcome: DeliveryOutcome): Promise<void>;
  /** Puts a failed notification's failed deliveries back in the queue, due now, with a fresh attempt count. */
  resend(db: Kysely<Database>, notificationId: string, nowMs: number): Promise<'resent' | 'not_found' | 'not_failed'>;
  /** Notifications oldest first after `after` (a position), optionally by status, each with its deliveries. */
  list(db: Db, filter: { status?: NotificationStatus; after?: TailPosition; limit: number }): Promise<{ items: NotificationItem[]; next: TailPosition | null }>;
  /** Figures for the statistics. */
  figures(db: Db): Promise<OutboxFigures>;
}

type NotificationInsert = Omit<Selectable<Database['notifications']>, 'seq'>;
const NOTIFICATIONS: RowTable<NotificationInsert> = {
  table: 'notifications',
  columns: {
    id: 'text',
    type: 'text',
    occurred_at: 'text',
    data: 'text',
    status: 'text',
    attempts: 'integer',
    dedupe_key: 'text',
    event_id: 'bigint',
    created_at: 'text',
  },
};

type DeliveryInsert = Pick<Selectable<Database['notification_deliveries']>, 'notification_id' | 'receiver' | 'recipient' | 'status' | 'attempts' | 'next_attempt_ms'>;
const DELIVERIES: RowTable<DeliveryInsert> = {
  table: 'notification_deliveries',
  columns: { notification_id: 'text', receiver: 'text', recipient: 'text', status: 'text', attempts: 'integer', next_attempt_ms: 'bigint' },
};

/**
 * A notification's id, made from its dedupe key: the same fact has the same id however often it is
 * derived (after a power cut lost the commit that first made it, say), so receivers, who deduplicate
 * by id, see it once. Written as a UUID (version 5 layout).
 */
function notificationId(dedupeKey: string): string {
  const hex = createHash('sha256').update(`collab-host notification\n${dedupeKey}`).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A notification is failed if any receiver failed, pending while any is pending, else delivered. */
async function refreshNotification(db: Db, notificationId: string): Promise<void> {
  await sql`
    UPDATE notifications SET
      attempts = (SELECT COALESCE(MAX(attempts), 0) FROM notification_deliveries WHERE notification_id = ${notificationId}),
      status = CASE
        WHEN EXISTS (SELECT 1 FROM notification_deliveries WHERE notification_id = ${notificationId} AND status = 'failed') THEN 'failed'
        WHEN EXISTS (SELECT 1 FROM notification_deliveries WHERE notification_id = ${notificationId} AND status = 'pending') THEN 'pending'
        ELSE 'delivered'
      END
    WHERE id = ${notificationId}
  `.execute(db);
}

/** A delivery row as a claim takes it (`RETURNING` of the claiming update). */
export interface ClaimedRow {
  id: number | string | bigint;
  receiver: string;
  recipient: string | null;
  attempts: number;
  notification_id: string;
  message_key: string | null;
}

/** Claimed delivery rows with their notifications, read in one query; a row whose notification is gone is left out. */
export async function claimedWithNotifications(db: Db, claimed: readonly ClaimedRow[], claimToken: string): Promise<ClaimedDelivery[]> {
  if (claimed.length === 0) return [];
  const notifications = await db
    .selectFrom('notifications')
    .select(['id', 'type', 'occurred_at', 'data'])
    .where('id', 'in', [...new Set(claimed.map((row) => row.notification_id))])
    .execute();
  const byId = new Map(notifications.map((row) => [row.id, row]));
  return claimed.flatMap((row) => {
    const notification = byId.get(row.notification_id);
    if (!notification) return [];
    return [
      {
        deliveryId: Number(row.id),
        claimToken,
        receiver: row.receiver,
        recipient: row.recipient,
        attempt: row.attempts,
        messageKey: row.message_key,
        notification: { id: notification.id, type: notification.type, occurredAt: notification.occurred_at, data: JSON.parse(notification.data) as unknown },
      },
    ];
  });
}

export const outbox: OutboxStore = {
  async enqueue(db, drafts, receivers, nowMs, activity = []) {
    if (drafts.length === 0) {
      await eventEffects.addActivity(db, activity);
      return [];
    }
    const createdAt = formatTime(nowMs);
    const planned = drafts.map((draft) => draft.deliveries ?? receivers.map((receiver): PlannedDelivery => ({ receiver })));
    const rows = drafts.map((draft, index): NotificationInsert => ({
      id: notificationId(draft.dedupeKey),
      type: draft.type,
      occurred_at: draft.occurredAt,
      data: JSON.stringify(draft.eventId === null ? draft.data : { ...draft.data, eventId: draft.eventId }),
      status: planned[index]!.length > 0 ? 'pending' : 'delivered',
      attempts: 0,
      dedupe_key: storableText(draft.dedupeKey),
      event_id: draft.eventId,
      created_at: createdAt,
    }));
    const inserted = new Set((await insertNewTypedRows<NotificationInsert, { id: string }>(db, NOTIFICATIONS, rows, ['id'])).map((row) => row.id));
    const newIds = rows.filter((row) => inserted.has(row.id)).map((row) => row.id);
    await insertRows<DeliveryInsert>(
      db,
      DELIVERIES,
      rows.flatMap((row, index) =>
        inserted.has(row.id)
          ? planned[index]!.map((delivery) => ({
              notification_id: row.id,
              receiver: delivery.receiver,
              recipient: delivery.recipient ?? null,
              status: 'pending',
              attempts: 0,
              next_attempt_ms: delivery.dueMs ?? nowMs,
            }))
          : [],
      ),
    );
    const notified = drafts.flatMap((draft, index) => (draft.activity && inserted.has(rows[index]!.id) ? [draft.activity] : []));
    await eventEffects.addActivity(db, [...activity, ...notified]);
    return newIds;
  },

  async claimDue(db, options) {
    const claimToken = randomUUID();
    const claimed = await db.transaction().execute(async (trx) => {
      const due = trx
        .selectFrom('notification_deliveries')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_ms', '<=', options.nowMs)
        // By id within a time: a digest message's deliveries (due at the same time) come together.
        .orderBy('next_attempt_ms')
        .orderBy('id')
        .limit(options.limit);
      const ids = (await dialectWork(trx).skipLocked(due).execute()).map((row) => row.id);
      if (ids.length === 0) return [];
      return dialectOf(trx).updateReturning(
        trx,
        'notification_deliveries',
        (query) => query.where('id', 'in', ids).where('status', '=', 'pending').where('next_attempt_ms', '<=', options.nowMs),
        { attempts: sql<number>`attempts + 1`, next_attempt_ms: options.nowMs + options.leaseMs, claim_token: claimToken },
        ['id', 'receiver', 'recipient', 'attempts', 'notification_id', 'message_key'],
      );
    });
    return claimedWithNotifications(db, claimed, claimToken);
  },

  async renewClaims(db, claimToken, untilMs) {
    await db.updateTable('notification_deliveries').set({ next_attempt_ms: untilMs }).where('claim_token', '=', claimToken).where('status', '=', 'pending').execute();
  },

  async recordAttempt(db, claim, outcome) {
    await db
      .updateTable('notification_deliveries')
      .set(
        outcome.status === 'delivered'
          ? { status: 'delivered', delivered_at: formatTime(outcome.nowMs), last_error: null, claim_token: null }
          : outcome.status === 'pending'
            ? { status: 'pending', next_attempt_ms: outcome.nextAttemptMs, last_error: outcome.error, claim_token: null }
            : outcome.status === 'deferred'
              ? { status: 'pending', next_attempt_ms: outcome.nextAttemptMs, attempts: sql<number>`attempts - 1`, claim_token: null }
              : { status: 'failed', last_error: outcome.error, claim_token: null },
      )
      .where('id', '=', claim.deliveryId)
      .where('claim_token', '=', claim.claimToken)
      .execute();
    await refreshNotification(db, claim.notification.id);
  },

  async resend(db, notificationId, nowMs) {
    return db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('notifications').select('status').where('id', '=', storableText(notificationId)).executeTakeFirst();
      if (!row) return 'not_found';
      if (row.status !== 'failed') return 'not_failed';
      await trx
        .updateTable('notification_deliveries')
        // A deliberate re-send leaves the digest it failed in: it goes in a message of its own making.
        .set({ status: 'pending', attempts: 0, next_attempt_ms: nowMs, last_error: null, claim_token: null, message_key: null })
        .where('notification_id', '=', notificationId)
        .where('status', '=', 'failed')
        .execute();
      await refreshNotification(trx, notificationId);
      return 'resent';
    });
  },

  async list(db, filter) {
    let query = db.selectFrom('notifications').selectAll();
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    const { shown, next } = await readTailPage(
      () =>
        inTailOrder(db, query, 'notifications', 'seq', filter.after)
          .limit(filter.limit + 1)
          .execute(),
      filter.limit,
      (row) => row.seq,
    );
    const deliveries =
      shown.length === 0
        ? []
        : await db
            .selectFrom('notification_deliveries')
            .selectAll()
            .where(
              'notification_id',
              'in',
              shown.map((row) => row.id),
            )
            .orderBy('id')
            .execute();
    const items = shown.map((row) => ({
      id: row.id,
      type: row.type,
      status: row.status as NotificationStatus,
      attempts: row.attempts,
      occurredAt: row.occurred_at,
      data: JSON.parse(row.data) as unknown,
      deliveries: deliveries
        .filter((delivery) => delivery.notification_id === row.id)
        .map((delivery) => ({
          receiver: delivery.receiver,
          recipient: delivery.recipient,
          status: delivery.status as NotificationStatus,
          attempts: delivery.attempts,
          lastError: delivery.last_error,
          deliveredAt: delivery.delivered_at,
        })),
    }));
    return { items, next };
  },

  async figures(db) {
    const pending = await db
      .selectFrom('notification_deliveries as d')
      .innerJoin('notifications as n', 'n.id', 'd.notification_id')
      .select([(eb) => eb.fn.countAll<number>().as('count'), (eb) => eb.fn.min('n.created_at').as('oldest')])
      .where('d.status', '=', 'pending')
      .executeTakeFirstOrThrow();
    const failed = await db
      .selectFrom('notification_deliveries')
      .select(['receiver', (eb) => eb.fn.countAll<number>().as('count')])
      .where('status', '=', 'failed')
      .groupBy('receiver')
      .execute();
    return {
      pending: Number(pending.count),
      oldestPendingAt: (pending.oldest as string | null) ?? null,
      failedByReceiver: Object.fromEntries(failed.map((row) => [row.receiver, Number(row.count)])),
    };
  },
};
