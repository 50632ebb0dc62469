import { sql, type Transaction } from 'kysely';
import { formatTime } from '../directory/time.js';
import type { Database } from '../store/schema.js';
import type { EventCredential } from './event-credentials.js';
import type { KnownEvent } from './event-schemas.js';
import { enqueueNotifications, insertActivity, insertChunked } from './notification-writer.js';
import { deriveEffects, type ActivityDraft, type Effects, type NotificationDraft, type PresenceChange, type ReminderChange } from './processors.js';

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
  await insertChunked(events, async (chunk) => {
    const rows = await trx
      .insertInto('events')
      .values(
        chunk.map((event) => ({
          delivery_key: event.deliveryKey,
          kind: event.kind,
          action: event.action,
          file_id: event.fileId,
          user_id: event.userId,
          credential: event.credential,
          status: event.known ? 'processed' : 'stored',
          received_at: formatTime(event.receivedMs),
          body: event.rawBody,
        })),
      )
      .onConflict((oc) => oc.column('delivery_key').doNothing())
      .returning(['id', 'delivery_key'])
      .execute();
    for (const row of rows) ids.set(row.delivery_key, row.id);
  });

  const activity: ActivityDraft[] = [];
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
    await applyStateful(trx, effects, eventId, nowMs);
    activity.push(...effects.activity);
    notifications.push(...effects.notifications.map((draft) => ({ ...draft, eventId })));
  }
  await insertActivity(trx, activity);
  await enqueueNotifications(trx, notifications, receivers, nowMs);
  return results;
}

async function applyStateful(trx: Transaction<Database>, effects: Effects, eventId: number, nowMs: number): Promise<void> {
  if (effects.reminder) await applyReminder(trx, effects.reminder, nowMs);
  if (effects.presence) await applyPresence(trx, effects.presence);
  if (effects.fileVersion) {
    // Version and updatedAt only move forward; an older event arriving late changes nothing.
    const { fileId, version, updatedAt } = effects.fileVersion;
    await trx
      .updateTable('files')
      .set({ version, updated_at: sql<string>`CASE WHEN updated_at < ${updatedAt} THEN ${updatedAt} ELSE updated_at END` })
      .where('id', '=', fileId)
      .where('version', '<', version)
      .execute();
  }
  if (effects.revision) {
    const r = effects.revision;
    await trx
      .insertInto('revisions')
      .values({
        file_id: r.fileId,
        revision_id: r.revisionId,
        action: r.action,
        user_id: r.userId,
        title: r.title,
        label: r.label,
        doc_history_id: r.docHistoryId,
        occurred_at: r.occurredAt,
        event_id: eventId,
      })
      .execute();
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
  const existing = await trx
    .selectFrom('reminders')
    .select(['status', 'due_at_ms', 'remind_user_ids'])
    .where('file_id', '=', change.fileId)
    .where('id', '=', change.id)
    .executeTakeFirst();
  if (!existing) {
    // An update for a reminder never seen (its create was lost before collab-host ran) still schedules it.
    if (change.remindAtMs === undefined) return;
    await trx
      .insertInto('reminders')
      .values({
        file_id: change.fileId,
        id: change.id,
        author_id: change.authorId,
        content: change.content ?? '',
        remind_user_ids: JSON.stringify(change.remindUserIds ?? [change.authorId]),
        remind_at: formatTime(change.remindAtMs),
        due_at_ms: change.remindAtMs,
        status: 'scheduled',
        created_at: now,
        updated_at: now,
      })
      .execute();
    return;
  }
  const moved = change.remindAtMs !== undefined && change.remindAtMs !== existing.due_at_ms;
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
  const since = formatTime(change.atMs);
  // The platform's timestamp orders enter and leave: an older event arriving late never undoes a newer one.
  await trx
    .insertInto('presence')
    .values({ file_id: change.fileId, user_id: change.userId, client_id: change.clientId, present: change.present ? 1 : 0, since, changed_ms: change.atMs })
    .onConflict((oc) =>
      oc
        .columns(['file_id', 'user_id', 'client_id'])
        .doUpdateSet((eb) => ({
          present: eb.ref('excluded.present'),
          since: sql<string>`CASE WHEN presence.present = 1 AND excluded.present = 1 THEN presence.since ELSE excluded.since END`,
          changed_ms: eb.ref('excluded.changed_ms'),
        }))
        .where(sql<boolean>`presence.changed_ms <= excluded.changed_ms`),
    )
    .execute();
}
