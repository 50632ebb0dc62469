import type { Generated } from 'kysely';
import type { EventOutcome } from '../../../events/listing-shapes.js';

export type { EventOutcome } from '../../../events/listing-shapes.js';

/**
 * The event pipeline's tables: the append-only event log, the outbox (notifications and one delivery per
 * receiver), reminders, presence, the revision log and callback failures. Epoch-millisecond columns are
 * 64-bit integers on both dialects.
 */
export interface EventTables {
  events: {
    id: Generated<number>;
    /** sha256 of the header kind and the raw body (a refused event's key also names its sender). */
    delivery_key: string;
    /** The header's kind: Comment, FileContent, … (or whatever unknown kind was pushed). */
    kind: string;
    action: string | null;
    /** The file the event is about, wherever the body names it (or the file of its reminder). */
    file_id: string | null;
    /** The acting user: the token's user on token events, the body's word on signed ones. */
    user_id: string | null;
    /** token | token-expired | signature | unsigned */
    credential: string;
    /** Who sent it: the token's user, or the user its signature was made for (null: signed for no user, unsigned, or an old refusal). */
    sender_id: string | null;
    /** pending (acknowledged, effects not derived yet) | processed | unprocessed | refused */
    outcome: EventOutcome;
    /** Why the event is refused or unprocessed, or what was left out of its effects. */
    problem: string | null;
    /** What the event is about beyond the file: `reminder:<id>`, `revision:<id>`. */
    subject: string | null;
    received_at: string;
    received_ms: number | null;
    /** When its effects were applied (the lag is effects_ms - received_ms). */
    effects_ms: number | null;
    /** The body exactly as received. */
    body: string;
  };
  notifications: {
    seq: Generated<number>;
    id: string;
    type: string;
    occurred_at: string;
    /** JSON */
    data: string;
    /** pending | delivered | failed, summarising the deliveries */
    status: string;
    attempts: Generated<number>;
    /** One fact notified once, however many events (or re-processings) report it. */
    dedupe_key: string | null;
    event_id: number | null;
    created_at: string;
  };
  notification_deliveries: {
    id: Generated<number>;
    notification_id: string;
    receiver: string;
    /** The person a personal notice is for (a user id); null: the receiver as a whole. */
    recipient: string | null;
    /** pending | delivered | failed */
    status: string;
    attempts: Generated<number>;
    next_attempt_ms: number;
    claim_token: string | null;
    last_error: string | null;
    delivered_at: string | null;
    /** The idempotency key of the digest message it goes in, fixed at its first claim; null: none yet. */
    message_key: string | null;
  };
  reminders: {
    seq: Generated<number>;
    file_id: string;
    id: string;
    author_id: string;
    content: string;
    /** JSON array of user ids */
    remind_user_ids: string;
    remind_at: string;
    due_at_ms: number;
    /** scheduled | fired | cancelled */
    status: string;
    created_at: string;
    updated_at: string;
    fired_at: string | null;
    /** The last event applied to the reminder: an older one (re-processed, or late) changes nothing. */
    last_event_id: Generated<number>;
  };
  presence: { file_id: string; user_id: string; client_id: string; present: number; since: string; changed_ms: number };
  revisions: {
    seq: Generated<number>;
    file_id: string;
    revision_id: number;
    action: string;
    user_id: string;
    title: string | null;
    label: string | null;
    doc_history_id: string | null;
    occurred_at: string;
    event_id: number;
  };
  callback_failures: {
    url: string;
    status: number;
    count: number;
    last_seen_at: string;
    last_error: string | null;
    /** The last System event counted: re-processing one does not count it twice. */
    last_event_id: Generated<number>;
  };
}
