/**
 * The shapes the event pipeline's management listings answer (contracts.md "Events"): plain types that
 * import nothing, so that the store that reads them, the routes that send them and the console that shows
 * them (a browser build without Node's types) share one definition.
 */

/** The outcome of an event in the log (see docs/events.md, "Outcomes"). */
export type EventOutcome = 'pending' | 'processed' | 'unprocessed' | 'refused';

export interface EventItem {
  id: number;
  kind: string;
  action: string | null;
  fileId: string | null;
  userId: string | null;
  /** Who really sent it: the user of its token, or the user its signature was made for; null when the platform signed it for no user (or unsigned). */
  senderId: string | null;
  receivedAt: string;
  /** The event as received, with its credentials (tokens, signatures, URL user-info) censored. */
  body: unknown;
  outcome: EventOutcome;
  problem: string | null;
}

export type NotificationStatus = 'pending' | 'delivered' | 'failed';

export interface NotificationItem {
  id: string;
  type: string;
  status: NotificationStatus;
  attempts: number;
  occurredAt: string;
  data: unknown;
  deliveries: Array<{ receiver: string; recipient: string | null; status: NotificationStatus; attempts: number; lastError: string | null; deliveredAt: string | null }>;
}

export type ReminderStatus = 'scheduled' | 'fired' | 'cancelled';

/** A reminder as the listings show it. */
export interface ReminderItem {
  id: string;
  fileId: string;
  authorId: string;
  content: string;
  remindUserIds: string[];
  remindAt: string;
  status: ReminderStatus;
}

export interface Presence {
  fileId: string;
  users: Array<{ userId: string; clients: string[]; since: string }>;
}

/** What the intake of this instance did, per kind. */
export type IntakeOutcome = 'accepted' | 'refused' | 'duplicate' | 'unauthenticated' | 'malformed';
/** What the processor of this instance did, per kind. */
export type ProcessOutcome = 'processed' | 'unprocessed';

/** `GET /api/events/stats`. */
export interface EventStats {
  /** This instance since it started: pushes per kind and what the intake answered. */
  intake: Record<string, Record<IntakeOutcome, number>>;
  /** This instance since it started: events per kind its processor finished, and how. */
  processing: Record<string, Record<ProcessOutcome, number>>;
  /** The whole log: events per outcome for the outcomes that call for attention. */
  log: { pending: number; unprocessed: number; refused: number };
  /** Events acknowledged and waiting for their effects, and the age of the oldest (ms; 0 when none). */
  waiting: { count: number; oldestAgeMs: number };
  /** Time from acknowledgement to effects over the last 1,000 processed events (ms). */
  lag: { p50Ms: number | null; p99Ms: number | null; sample: number };
  /** Deliveries waiting, the age of the oldest waiting notification (ms), failures for good per receiver. */
  outbox: { pending: number; oldestPendingAgeMs: number; failedByReceiver: Record<string, number> };
  /** Scheduled reminders due now, and those due for longer than the lateness bound (2 s). */
  reminders: { due: number; late: number };
}
