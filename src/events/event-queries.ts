import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

/** The read side of the management listings (contracts.md, "Management API listings"). */

export interface Page<T> {
  items: T[];
  /** The position after the last item, or null at the end. */
  next: number | null;
}

export interface EventItem {
  id: number;
  kind: string;
  action: string | null;
  fileId: string | null;
  userId: string | null;
  receivedAt: string;
  body: unknown;
}

export interface NotificationItem {
  id: string;
  type: string;
  status: string;
  attempts: number;
  occurredAt: string;
  data: unknown;
  deliveries: Array<{ receiver: string; status: string; attempts: number; lastError: string | null; deliveredAt: string | null }>;
}

export interface ReminderItem {
  id: string;
  fileId: string;
  authorId: string;
  content: string;
  remindUserIds: string[];
  remindAt: string;
  status: string;
}

export interface Presence {
  fileId: string;
  users: Array<{ userId: string; clients: string[]; since: string }>;
}

/** Events oldest first, after `after` (an id), optionally by file, header kind and received time. */
export async function listEvents(
  db: Kysely<Database>,
  filter: { fileId?: string; kind?: string; since?: string; after: number; limit: number },
): Promise<Page<EventItem>> {
  let query = db.selectFrom('events').selectAll().where('id', '>', filter.after);
  if (filter.fileId !== undefined) query = query.where('file_id', '=', filter.fileId);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  if (filter.since !== undefined) query = query.where('received_at', '>=', filter.since);
  const rows = await query.orderBy('id').limit(filter.limit + 1).execute();
  return page(rows, filter.limit, (row) => row.id, (row) => ({
    id: row.id,
    kind: row.kind,
    action: row.action,
    fileId: row.file_id,
    userId: row.user_id,
    receivedAt: row.received_at,
    body: JSON.parse(row.body) as unknown,
  }));
}

/** Notifications oldest first, optionally by status, each with its per-receiver deliveries. */
export async function listNotifications(
  db: Kysely<Database>,
  filter: { status?: string; after: number; limit: number },
): Promise<Page<NotificationItem>> {
  let query = db.selectFrom('notifications').selectAll().where('seq', '>', filter.after);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  const rows = await query.orderBy('seq').limit(filter.limit + 1).execute();
  const shown = rows.slice(0, filter.limit);
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
  return page(rows, filter.limit, (row) => row.seq, (row) => ({
    id: row.id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    occurredAt: row.occurred_at,
    data: JSON.parse(row.data) as unknown,
    deliveries: deliveries
      .filter((delivery) => delivery.notification_id === row.id)
      .map((delivery) => ({
        receiver: delivery.receiver,
        status: delivery.status,
        attempts: delivery.attempts,
        lastError: delivery.last_error,
        deliveredAt: delivery.delivered_at,
      })),
  }));
}

/** Reminders in the order they were first seen, optionally of one file. */
export async function listReminders(db: Kysely<Database>, filter: { fileId?: string; after: number; limit: number }): Promise<Page<ReminderItem>> {
  let query = db.selectFrom('reminders').selectAll().where('seq', '>', filter.after);
  if (filter.fileId !== undefined) query = query.where('file_id', '=', filter.fileId);
  const rows = await query.orderBy('seq').limit(filter.limit + 1).execute();
  return page(rows, filter.limit, (row) => row.seq, (row) => ({
    id: row.id,
    fileId: row.file_id,
    authorId: row.author_id,
    content: row.content,
    remindUserIds: JSON.parse(row.remind_user_ids) as string[],
    remindAt: row.remind_at,
    status: row.status,
  }));
}

/** Who is in the file now: one entry per user with their clients and when they first entered. */
export async function filePresence(db: Kysely<Database>, fileId: string): Promise<Presence> {
  const rows = await db
    .selectFrom('presence')
    .select(['user_id', 'client_id', 'since'])
    .where('file_id', '=', fileId)
    .where('present', '=', 1)
    .orderBy('user_id')
    .orderBy('client_id')
    .execute();
  const users = new Map<string, { userId: string; clients: string[]; since: string }>();
  for (const row of rows) {
    const user = users.get(row.user_id) ?? { userId: row.user_id, clients: [], since: row.since };
    user.clients.push(row.client_id);
    if (row.since < user.since) user.since = row.since;
    users.set(row.user_id, user);
  }
  return { fileId, users: [...users.values()] };
}

function page<Row, Item>(rows: Row[], limit: number, position: (row: Row) => number, toItem: (row: Row) => Item): Page<Item> {
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { items: shown.map(toItem), next: rows.length > limit && last !== undefined ? position(last) : null };
}
