import { sql, type Transaction } from 'kysely';
import { formatTime } from '../directory/time.js';
import { bulkInsert, type BulkTable } from '../store/bulk-insert.js';
import type { Database } from '../store/schema.js';
import type { EventCredential } from './event-credentials.js';
import { insertNewRows } from '../store/bulk-insert.js';
import { FixedStatement } from './event-sql.js';
import type { KnownEvent } from './event-schemas.js';
import { enqueueNotifications, insertActivity } from './notification-writer.js';
import { deriveEffects, type ActivityDraft, type Effects, type NotificationDraft, type PresenceChange, type ReminderChange, type RevisionEntry } from './processors.js';

/** An authenticated, validated event, ready to append. */
export interface IncomingEvent {
  /** sha256 of the header kind and the raw body. */
  deliveryKey: string;
  /** The header's kind (canonical for known kinds, as sent for unknown ones). */
  kind: string;
  action: string | null;
  fileId: string | null;
  userId: string | null;
  credential: EventCredential;
  receivedMs: number;
  rawBody: string;
  /** Set for a known kind and action; unknown ones are stored, not acted on. */
  known: KnownEvent | undefined;
}

export interface RecordResult {
  /** The new event's id; null for a duplicate delivery. */
  eventId: number | null;
  duplicate: boolean;
}

/**
 * Appends a batch of events and everything they derive, inside the caller's transaction. An event whose
 * delivery key is already stored (or earlier in the batch) is a duplicate: acknowledged, no effect.
 */
export async function writeEvents(
  trx: Transaction<Database>,
  events: readonly IncomingEvent[],
  receivers: readonly string[],
  nowMs: number,
): Promise<RecordResult[]> {
  const ids = new Map<string, number>();
  const rows = events.map((event) => [
    event.deliveryKey,
    event.kind,
    event.action,
    event.fileId,
    event.userId,
    event.credential,
    event.known ? 'processed' : 'stored',
    formatTime(event.receivedMs),
    event.rawBody,
  ]);
  for (const row of await insertNewRows<{ id: number; delivery_key: string }>(trx, EVENTS, rows, ['id', 'delivery_key'])) {
    ids.set(row.delivery_key, Number(row.id));
  }

  const activity: ActivityDraft[] = [];
  const revisions: (RevisionEntry & { eventId: number })[] = [];
  const notifications: (NotificationDraft & { eventId: number })[] = [];
  const results: RecordResult[] = [];
  for (const event of events) {
    const eventId = ids.get(event.deliveryKey);
    if (eventId === undefined) {
      results.push({ eventId: null, duplicate: true });
      continue;
    }
    ids.delete(event.deliveryKey); // a second copy later in the batch is a duplicate
    results.push({ eventId, duplicate: false });
    if (!event.known) continue;
    const effects = deriveEffects(event.known, event.receivedMs);
    // Stateful effects in arrival order; append-only rows are collected and written in bulk below.
    await applyStateful(trx, effects, nowMs);
    if (effects.revision) revisions.push({ ...effects.revision, eventId });
    activity.push(...effects.activity);
    notifications.push(...effects.notifications.map((draft) => ({ ...draft, eventId })));
  }
  await bulkInsert(
    trx,
    REVISIONS,
    revisions.map((r) => [r.fileId, r.revisionId, r.action, r.userId, r.title, r.label, r.docHistoryId, r.occurredAt, r.eventId]),
  );
  await insertActivity(trx, activity);
  await enqueueNotifications(trx, notifications, receivers, nowMs);
  return results;
}

async function applyStateful(trx: Transaction<Database>, effects: Effects, nowMs: number): Promise<void> {
  if (effects.reminder) await applyReminder(trx, effects.reminder, nowMs);
  if (effects.presence) await applyPresence(trx, effects.presence);
  if (effects.fileVersion) {
    const { fileId, version, updatedAt } = effects.fileVersion;
    await ADVANCE_FILE_VERSION.run(trx, [version, updatedAt, updatedAt, fileId, version]);
  }
  if (effects.callbackFailure) {
    const f = effects.callbackFailure;
    await trx
      .insertInto('callback_failures')
      .values({ url: f.url, status: f.status, count: 1, last_seen_at: f.at, last_error: f.error })
      .onConflict((oc) =>
        oc.columns(['url', 'status']).doUpdateSet((eb) => ({
          count: sql<number>`callback_failures.count + 1`,
          last_seen_at: eb.ref('excluded.last_seen_at'),
          last_error: eb.ref('excluded.last_error'),
        })),
      )
      .execute();
  }
}

async function applyReminder(trx: Transaction<Database>, change: ReminderChange, nowMs: number): Promise<void> {
  const now = formatTime(nowMs);
  if (change.op === 'remove') {
    await trx
      .updateTable('reminders')
      .set({ status: 'cancelled', updated_at: now })
      .where('file_id', '=', change.fileId)
      .where('id', '=', change.id)
      .execute();
    return;
  }
  const [existing] = await SELECT_REMINDER.run<{ status: string; due_at_ms: number }>(trx, [change.fileId, change.id]);
  if (!existing) {
    // An update for a reminder never seen (its create was lost before collab-host ran) still schedules it.
    if (change.remindAtMs === undefined) return;
    await INSERT_REMINDER.run(trx, [
      change.fileId,
      change.id,
      change.authorId,
      change.content ?? '',
      JSON.stringify(change.remindUserIds ?? [change.authorId]),
      formatTime(change.remindAtMs),
      change.remindAtMs,
      now,
      now,
    ]);
    return;
  }
  const moved = change.remindAtMs !== undefined && change.remindAtMs !== Number(existing.due_at_ms);
  // A moved reminder fires again at its new time; a cancelled one stays cancelled.
  const status = existing.status === 'cancelled' ? 'cancelled' : moved ? 'scheduled' : existing.status;
  await trx
    .updateTable('reminders')
    .set({
      ...(change.op === 'create' ? { author_id: change.authorId } : {}),
      ...(change.content === undefined ? {} : { content: change.content }),
      ...(change.remindUserIds === undefined ? {} : { remind_user_ids: JSON.stringify(change.remindUserIds) }),
      ...(change.remindAtMs === undefined ? {} : { remind_at: formatTime(change.remindAtMs), due_at_ms: change.remindAtMs }),
      status,
      ...(moved && status === 'scheduled' ? { fired_at: null } : {}),
      updated_at: now,
    })
    .where('file_id', '=', change.fileId)
    .where('id', '=', change.id)
    .execute();
}

async function applyPresence(trx: Transaction<Database>, change: PresenceChange): Promise<void> {
  await UPSERT_PRESENCE.run(trx, [change.fileId, change.userId, change.clientId, change.present ? 1 : 0, formatTime(change.atMs), change.atMs]);
}

// The statements run per event, as fixed SQL text.

const EVENTS: BulkTable = {
  table: 'events',
  columns: ['delivery_key', 'kind', 'action', 'file_id', 'user_id', 'credential', 'status', 'received_at', 'body'],
  pgTypes: ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text'],
};

const REVISIONS: BulkTable = {
  table: 'revisions',
  columns: ['file_id', 'revision_id', 'action', 'user_id', 'title', 'label', 'doc_history_id', 'occurred_at', 'event_id'],
  pgTypes: ['text', 'bigint', 'text', 'text', 'text', 'text', 'text', 'text', 'bigint'],
};

/** Version and updatedAt only move forward; an older event arriving late changes nothing. */
const ADVANCE_FILE_VERSION = new FixedStatement(
  'UPDATE files SET version = ?, updated_at = CASE WHEN updated_at < ? THEN ? ELSE updated_at END WHERE id = ? AND version < ?',
);

const SELECT_REMINDER = new FixedStatement('SELECT status, due_at_ms FROM reminders WHERE file_id = ? AND id = ?');

const INSERT_REMINDER = new FixedStatement(
  `INSERT INTO reminders (file_id, id, author_id, content, remind_user_ids, remind_at, due_at_ms, status, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, ?)`,
);

/** The platform's timestamp orders enter and leave: an older event arriving late never undoes a newer one. */
const UPSERT_PRESENCE = new FixedStatement(
  `INSERT INTO presence (file_id, user_id, client_id, present, since, changed_ms) VALUES (?, ?, ?, ?, ?, ?)
   ON CONFLICT (file_id, user_id, client_id) DO UPDATE SET
     present = excluded.present,
     since = CASE WHEN presence.present = 1 AND excluded.present = 1 THEN presence.since ELSE excluded.since END,
     changed_ms = excluded.changed_ms
   WHERE presence.changed_ms <= excluded.changed_ms`,
);
