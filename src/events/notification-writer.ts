import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { formatTime } from '../directory/time.js';
import { bulkInsert, type BulkTable } from '../store/bulk-insert.js';
import type { Database } from '../store/schema.js';
import { insertNewRows } from '../store/bulk-insert.js';
import type { ActivityDraft, NotificationDraft } from './processors.js';

type Db = Kysely<Database> | Transaction<Database>;

const ACTIVITY: BulkTable = {
  table: 'activity',
  columns: ['user_id', 'file_id', 'related_user_id', 'kind', 'occurred_at'],
  pgTypes: ['text', 'text', 'text', 'text', 'text'],
};

const NOTIFICATIONS: BulkTable = {
  table: 'notifications',
  columns: ['id', 'type', 'occurred_at', 'data', 'status', 'attempts', 'dedupe_key', 'event_id', 'created_at'],
  pgTypes: ['text', 'text', 'text', 'text', 'text', 'integer', 'text', 'bigint', 'text'],
};

const DELIVERIES: BulkTable = {
  table: 'notification_deliveries',
  columns: ['notification_id', 'receiver', 'status', 'attempts', 'next_attempt_ms'],
  pgTypes: ['text', 'text', 'text', 'integer', 'bigint'],
};

export async function insertActivity(db: Db, rows: readonly ActivityDraft[]): Promise<void> {
  await bulkInsert(
    db,
    ACTIVITY,
    rows.map((row) => [row.userId, row.fileId, row.relatedUserId, row.kind, row.occurredAt]),
  );
}

/**
 * Puts notifications in the outbox: one notification row, and one pending delivery per receiver, so a
 * failing receiver is retried alone. A draft whose dedupe key is already present is skipped (with its
 * activity). Without receivers a notification is recorded as delivered to nobody. Returns the new ids.
 */
export async function enqueueNotifications(
  db: Db,
  drafts: readonly (NotificationDraft & { eventId: number | null })[],
  receivers: readonly string[],
  nowMs: number,
): Promise<string[]> {
  if (drafts.length === 0) return [];
  const createdAt = formatTime(nowMs);
  const status = receivers.length > 0 ? 'pending' : 'delivered';
  const ids = drafts.map(() => randomUUID());
  const rows = drafts.map((draft, index) => [
    ids[index],
    draft.type,
    draft.occurredAt,
    JSON.stringify(draft.eventId === null ? draft.data : { ...draft.data, eventId: draft.eventId }),
    status,
    0,
    draft.dedupeKey ?? null,
    draft.eventId,
    createdAt,
  ]);
  const returned = await insertNewRows<{ id: string }>(db, NOTIFICATIONS, rows, ['id']);
  const inserted = new Set(returned.map((row) => row.id));
  const newIds = ids.filter((id) => inserted.has(id));
  await bulkInsert(
    db,
    DELIVERIES,
    newIds.flatMap((notificationId) => receivers.map((receiver) => [notificationId, receiver, 'pending', 0, nowMs])),
  );
  const activity = drafts.flatMap((draft, index) => (draft.activity && inserted.has(ids[index]!) ? [draft.activity] : []));
  await insertActivity(db, activity);
  return newIds;
}
