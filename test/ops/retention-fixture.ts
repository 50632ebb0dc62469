import { formatTime } from '../../src/directory/time.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';

export const DAY_MS = 86_400_000;

/** Rows of every pruned table, some old, some recent, some old but still with work to do. */
export async function seedRetentionRows(store: OpenDatabase, nowMs: number): Promise<void> {
  const db = store.db;
  const ago = (days: number) => formatTime(nowMs - days * DAY_MS);
  const event = (key: string, daysAgo: number, outcome: 'pending' | 'processed' | 'refused', subject: string | null = null) => ({
    delivery_key: key,
    kind: 'Comment',
    action: 'create',
    file_id: 'f1',
    user_id: 'u1',
    credential: 'signature',
    outcome,
    problem: null,
    subject,
    received_at: ago(daysAgo),
    received_ms: nowMs - daysAgo * DAY_MS,
    effects_ms: null,
    body: '{}',
  });
  await db
    .insertInto('events')
    .values([
      event('old-processed', 100, 'processed'),
      event('old-refused', 100, 'refused'),
      event('old-pending', 100, 'pending'),
      event('old-about-scheduled-reminder', 100, 'processed', 'reminder:r-scheduled'),
      event('old-about-fired-reminder', 100, 'processed', 'reminder:r-fired'),
      event('inside-window', 89, 'processed'),
      event('recent', 1, 'processed'),
    ])
    .execute();
  const reminder = (id: string, status: string) => ({
    file_id: 'f1',
    id,
    author_id: 'u1',
    content: 'x',
    remind_user_ids: '["u1"]',
    remind_at: ago(-10),
    due_at_ms: nowMs + 10 * DAY_MS,
    status,
    created_at: ago(100),
    updated_at: ago(100),
    fired_at: null,
  });
  await db
    .insertInto('reminders')
    .values([reminder('r-scheduled', 'scheduled'), reminder('r-fired', 'fired')])
    .execute();

  const notification = (id: string, daysAgo: number, status: string) => ({
    id,
    type: 'comment',
    occurred_at: ago(daysAgo),
    data: '{}',
    status,
    dedupe_key: id,
    event_id: null,
    created_at: ago(daysAgo),
  });
  await db
    .insertInto('notifications')
    .values([
      notification('n-old-delivered', 40, 'delivered'),
      notification('n-old-failed', 40, 'failed'),
      notification('n-old-pending', 40, 'pending'),
      notification('n-old-resent', 40, 'failed'),
      notification('n-recent', 10, 'delivered'),
    ])
    .execute();
  const delivery = (notificationId: string, receiver: string, status: string) => ({
    notification_id: notificationId,
    receiver,
    status,
    next_attempt_ms: 0,
    claim_token: null,
    last_error: null,
    delivered_at: null,
  });
  await db
    .insertInto('notification_deliveries')
    .values([
      delivery('n-old-delivered', 'http://a', 'delivered'),
      delivery('n-old-delivered', 'http://b', 'delivered'),
      delivery('n-old-failed', 'http://a', 'failed'),
      delivery('n-old-pending', 'http://a', 'pending'),
      delivery('n-old-pending', 'http://b', 'delivered'),
      // Failed, then re-sent: the notification's summary still says failed, one delivery is pending again.
      delivery('n-old-resent', 'http://a', 'pending'),
      delivery('n-recent', 'http://a', 'delivered'),
    ])
    .execute();

  const activity = (userId: string, daysAgo: number) => ({ user_id: userId, file_id: 'f1', related_user_id: null, kind: 'open', occurred_at: ago(daysAgo) });
  await db
    .insertInto('activity')
    .values([activity('old-1', 120), activity('old-2', 100), activity('old-3', 100), activity('recent-1', 80), activity('recent-2', 0)])
    .execute();

  const presence = (clientId: string, present: number, hoursAgo: number) => ({
    file_id: 'f1',
    user_id: 'u1',
    client_id: clientId,
    present,
    since: formatTime(nowMs - hoursAgo * 3_600_000),
    changed_ms: nowMs - hoursAgo * 3_600_000,
  });
  await db
    .insertInto('presence')
    .values([presence('stale-enter', 1, 30), presence('old-leave', 0, 72), presence('current', 1, 1)])
    .execute();

  const audit = (action: string, daysAgo: number) => ({
    at: ago(daysAgo),
    kind: 'management',
    actor_id: null,
    credential: 'admin_key',
    file_id: null,
    action,
    permissions: null,
    details: null,
  });
  await db
    .insertInto('audit_log')
    .values([audit('outside-window', 366), audit('inside-window', 364)])
    .execute();
}

/** What is left of each pruned table: the keys that name its rows. */
export async function remainingRows(store: OpenDatabase): Promise<Record<string, string[]>> {
  const db = store.db;
  const sorted = (values: string[]) => values.sort();
  return {
    events: sorted((await db.selectFrom('events').select('delivery_key').execute()).map((row) => row.delivery_key)),
    notifications: sorted((await db.selectFrom('notifications').select('id').execute()).map((row) => row.id)),
    notification_deliveries: sorted(
      (await db.selectFrom('notification_deliveries').select(['notification_id', 'receiver']).execute()).map((row) => `${row.notification_id} ${row.receiver}`),
    ),
    activity: sorted((await db.selectFrom('activity').select('user_id').execute()).map((row) => row.user_id)),
    presence: sorted((await db.selectFrom('presence').select('client_id').execute()).map((row) => row.client_id)),
    audit_log: sorted((await db.selectFrom('audit_log').select('action').execute()).map((row) => row.action)),
  };
}

export async function clearRetentionTables(store: OpenDatabase): Promise<void> {
  for (const table of ['events', 'reminders', 'notifications', 'notification_deliveries', 'activity', 'presence', 'audit_log'] as const) {
    await store.db.deleteFrom(table).execute();
  }
}
