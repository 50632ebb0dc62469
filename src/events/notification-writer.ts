import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { formatTime } from '../directory/time.js';
import type { Database } from '../store/schema.js';
import type { ActivityDraft, NotificationDraft } from './processors.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Rows per INSERT: well under both dialects' bound-parameter limits. */
const CHUNK = 200;

export async function insertChunked<T>(rows: readonly T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK) await insert(rows.slice(start, start + CHUNK));
}

export async function insertActivity(db: Db, rows: readonly ActivityDraft[]): Promise<void> {
  await insertChunked(rows, (chunk) =>
    db
      .insertInto('activity')
      .values(
        chunk.map((row) => ({
          user_id: row.userId,
          file_id: row.fileId,
          related_user_id: row.relatedUserId,
          kind: row.kind,
          occurred_at: row.occurredAt,
        })),
      )
      .execute(),
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
  const rows = drafts.map((draft) => ({
    id: randomUUID(),
    type: draft.type,
    occurred_at: draft.occurredAt,
    data: JSON.stringify(draft.eventId === null ? draft.data : { ...draft.data, eventId: draft.eventId }),
    status: receivers.length > 0 ? 'pending' : 'delivered',
    attempts: 0,
    dedupe_key: draft.dedupeKey ?? null,
    event_id: draft.eventId,
    created_at: createdAt,
  }));
  const inserted = new Set<string>();
  await insertChunked(rows, async (chunk) => {
    const returned = await db
      .insertInto('notifications')
      .values(chunk)
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .execute();
    for (const row of returned) inserted.add(row.id);
  });
  const ids = rows.filter((row) => inserted.has(row.id)).map((row) => row.id);
  const deliveries = ids.flatMap((notificationId) =>
    receivers.map((receiver) => ({ notification_id: notificationId, receiver, status: 'pending', attempts: 0, next_attempt_ms: nowMs })),
  );
  await insertChunked(deliveries, (chunk) => db.insertInto('notification_deliveries').values(chunk).execute());
  const activity = drafts.flatMap((draft, index) => (draft.activity && inserted.has(rows[index]!.id) ? [draft.activity] : []));
  await insertActivity(db, activity);
  return ids;
}
