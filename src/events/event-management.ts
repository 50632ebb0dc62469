import type { Kysely } from 'kysely';
import { redactValue } from '../shared/redaction.js';
import { eventEffects } from '../store/events/event-effects.js';
import { eventLog, type EventFilter, type EventOutcome } from '../store/events/event-log.js';
import { outbox, type NotificationItem, type NotificationStatus } from '../store/notify/outbox.js';
import { reminders, type ReminderItem } from '../store/events/reminders.js';
import type { Database } from '../store/schema/schema.js';
import type { TailPosition } from '../store/statements/tail-order.js';
import type { EventItem, Presence } from './listing-shapes.js';

/** What the management API does with the pipeline's data: the listings (contracts.md) and re-sending. */

export interface Page<T, P = number> {
  items: T[];
  /** The position after the last item, or null at the end. */
  next: P | null;
}

export type { EventItem, Presence } from './listing-shapes.js';

/** Without an outcome the listing shows the accepted events: processed, unprocessed and those still pending. */
export const ACCEPTED_OUTCOMES: readonly EventOutcome[] = ['pending', 'processed', 'unprocessed'];

export async function listEvents(db: Kysely<Database>, filter: Omit<EventFilter, 'outcomes'> & { outcomes?: readonly EventOutcome[] }): Promise<Page<EventItem>> {
  const page = await eventLog.list(db, { ...filter, outcomes: filter.outcomes ?? ACCEPTED_OUTCOMES });
  return {
    next: page.next,
    items: page.items.map((event) => ({
      id: event.id,
      kind: event.kind,
      action: event.action,
      fileId: event.fileId,
      userId: event.userId,
      senderId: event.senderId,
      receivedAt: event.receivedAt,
      body: shownBody(event.body),
      outcome: event.outcome,
      problem: event.problem,
    })),
  };
}

/**
 * An event's body as the listing shows it: censored, and never the reason the whole page fails (a body
 * nested past the bound shows TOO_DEEP there; one that is not JSON any more, a note).
 */
function shownBody(stored: string): unknown {
  try {
    return redactValue(JSON.parse(stored) as unknown);
  } catch {
    return '[the stored body is not readable JSON]';
  }
}

export function listNotifications(
  db: Kysely<Database>,
  filter: { status?: NotificationStatus; after?: TailPosition; limit: number },
): Promise<Page<NotificationItem, TailPosition>> {
  return outbox.list(db, filter);
}

export function listReminders(db: Kysely<Database>, filter: { fileId?: string; after?: TailPosition; limit: number }): Promise<Page<ReminderItem, TailPosition>> {
  return reminders.list(db, filter);
}

/** Who is in the file now: one entry per user with their clients and when they first entered. */
export async function filePresence(db: Kysely<Database>, fileId: string): Promise<Presence> {
  const users = new Map<string, { userId: string; clients: string[]; since: string }>();
  for (const row of await eventEffects.presence(db, fileId)) {
    const user = users.get(row.userId) ?? { userId: row.userId, clients: [], since: row.since };
    user.clients.push(row.clientId);
    if (row.since < user.since) user.since = row.since;
    users.set(row.userId, user);
  }
  return { fileId, users: [...users.values()] };
}

/** Puts a failed notification's failed deliveries back in the queue (the receivers that had it keep it). */
export function resendNotification(db: Kysely<Database>, notificationId: string, nowMs: number): Promise<'resent' | 'not_found' | 'not_failed'> {
  return outbox.resend(db, notificationId, nowMs);
}

/** The functions above over one store: what the management API's event routes call (built by the composition). */
export interface EventManagement {
  listEvents(filter: Omit<EventFilter, 'outcomes'> & { outcomes?: readonly EventOutcome[] }): Promise<Page<EventItem>>;
  listNotifications(filter: { status?: NotificationStatus; after?: TailPosition; limit: number }): Promise<Page<NotificationItem, TailPosition>>;
  listReminders(filter: { fileId?: string; after?: TailPosition; limit: number }): Promise<Page<ReminderItem, TailPosition>>;
  filePresence(fileId: string): Promise<Presence>;
  resendNotification(notificationId: string, nowMs: number): Promise<'resent' | 'not_found' | 'not_failed'>;
}

export function eventManagement(db: Kysely<Database>): EventManagement {
  return {
    listEvents: (filter) => listEvents(db, filter),
    listNotifications: (filter) => listNotifications(db, filter),
    listReminders: (filter) => listReminders(db, filter),
    filePresence: (fileId) => filePresence(db, fileId),
    resendNotification: (notificationId, nowMs) => resendNotification(db, notificationId, nowMs),
  };
}
