import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { formatTime } from '../directory/time.js';
import type { DialectName } from '../store/dialect.js';
import type { Database } from '../store/schema.js';

/** One claimed delivery: a notification for one receiver, with the attempt number it is on. */
export interface ClaimedDelivery {
  deliveryId: number;
  claimToken: string;
  receiver: string;
  attempt: number;
  notification: { id: string; type: string; occurredAt: string; data: unknown };
}

/**
 * Claims due pending deliveries for this worker: each claimed row's next attempt moves `leaseMs` ahead
 * (so a worker that dies mid-send is replaced after the lease) and its attempt count goes up, in one
 * transaction. On PostgreSQL the rows are locked `FOR UPDATE SKIP LOCKED`, so several instances never
 * claim the same row; SQLite has one writer, and the conditional UPDATE claims only what is still due.
 */
export async function claimDeliveries(
  db: Kysely<Database>,
  dialect: DialectName,
  options: { limit: number; leaseMs: number; nowMs: number },
): Promise<ClaimedDelivery[]> {
  const claimToken = randomUUID();
  const claimed = await db.transaction().execute(async (trx) => {
    let due = trx
      .selectFrom('notification_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_ms', '<=', options.nowMs)
      .orderBy('next_attempt_ms')
      .limit(options.limit);
    if (dialect === 'postgres') due = due.forUpdate().skipLocked();
    const ids = (await due.execute()).map((row) => row.id);
    if (ids.length === 0) return [];
    return trx
      .updateTable('notification_deliveries')
      .set({ attempts: sql<number>`attempts + 1`, next_attempt_ms: options.nowMs + options.leaseMs, claim_token: claimToken })
      .where('id', 'in', ids)
      .where('status', '=', 'pending')
      .where('next_attempt_ms', '<=', options.nowMs)
      .returning(['id', 'receiver', 'attempts', 'notification_id'])
      .execute();
  });
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
        deliveryId: row.id,
        claimToken,
        receiver: row.receiver,
        attempt: row.attempts,
        notification: { id: notification.id, type: notification.type, occurredAt: notification.occurred_at, data: JSON.parse(notification.data) as unknown },
      },
    ];
  });
}

export type DeliveryOutcome =
  | { status: 'delivered'; nowMs: number }
  | { status: 'pending'; nextAttemptMs: number; error: string }
  | { status: 'failed'; error: string };

/** Records how an attempt went (only if this worker still holds the claim), then the notification's summary. */
export async function recordAttempt(db: Kysely<Database>, claim: ClaimedDelivery, outcome: DeliveryOutcome): Promise<void> {
  await db
    .updateTable('notification_deliveries')
    .set(
      outcome.status === 'delivered'
        ? { status: 'delivered', delivered_at: formatTime(outcome.nowMs), last_error: null, claim_token: null }
        : outcome.status === 'pending'
          ? { status: 'pending', next_attempt_ms: outcome.nextAttemptMs, last_error: outcome.error, claim_token: null }
          : { status: 'failed', last_error: outcome.error, claim_token: null },
    )
    .where('id', '=', claim.deliveryId)
    .where('claim_token', '=', claim.claimToken)
    .execute();
  await refreshNotification(db, claim.notification.id);
}

/** A notification is failed if any receiver failed, pending while any is pending, else delivered. */
export async function refreshNotification(db: Kysely<Database>, notificationId: string): Promise<void> {
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

/** Puts a failed notification's failed deliveries back in the queue, due now, with a fresh attempt count. */
export async function resendNotification(db: Kysely<Database>, notificationId: string, nowMs: number): Promise<'resent' | 'not_found' | 'not_failed'> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('notifications').select('status').where('id', '=', notificationId).executeTakeFirst();
    if (!row) return 'not_found';
    if (row.status !== 'failed') return 'not_failed';
    await trx
      .updateTable('notification_deliveries')
      .set({ status: 'pending', attempts: 0, next_attempt_ms: nowMs, last_error: null, claim_token: null })
      .where('notification_id', '=', notificationId)
      .where('status', '=', 'failed')
      .execute();
    await refreshNotification(trx, notificationId);
    return 'resent';
  });
}
