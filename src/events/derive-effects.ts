import { formatTime } from '../directory/time.js';
import { redactText } from '../shared/redaction.js';
import type { ActivityRow, CallbackFailure, FileVersionRow, PresenceChange, ReminderChange, RevisionRow } from '../store/events/event-effects.js';
import type { NotificationDraft } from '../store/notify/outbox.js';
import type { Meaning } from './event-reader.js';

/** The notification types of contracts.md, "Outgoing notifications". */
export type NotificationType = 'reminder.due' | 'mention.created' | 'comment.created' | 'file.updated' | 'revision.changed' | 'callback.failed';

/** Everything one event derives; applied by the processor in one transaction with the event's outcome. */
export interface EventEffects {
  activity: ActivityRow[];
  notifications: Array<NotificationDraft & { type: NotificationType }>;
  reminder?: ReminderChange;
  presence?: PresenceChange;
  fileVersion?: FileVersionRow;
  revision?: RevisionRow;
  callbackFailure?: CallbackFailure;
}

/** The event as the log decided it: who acts on which file, and when it was received. */
export interface EventSubject {
  eventId: number;
  fileId: string;
  actorId: string;
  receivedMs: number;
}

/** A URL kept in the callback-failure counts is at most this long (it is part of their key). */
const MAX_URL_LENGTH = 1000;

/**
 * What an event means, as effects: no I/O here. `receivedMs` stands in for the event's time when the body
 * carries none, and caps a platform timestamp from the future. Mentioned users and reminder recipients
 * arrive already bounded to the file's known users (mention-fanout.ts). Every notification has a dedupe
 * key and every row its event, so deriving an event twice adds nothing.
 */
export function deriveEffects(meaning: Meaning, subject: EventSubject): EventEffects {
  const { eventId, fileId, actorId: userId, receivedMs } = subject;
  const received = formatTime(receivedMs);
  const at = (timestamp: number | undefined) => formatTime(Math.min(timestamp ?? receivedMs, receivedMs));
  const activity = (kind: string, occurredAt: string, relatedUserId: string | null = null): ActivityRow => ({ userId, fileId, relatedUserId, kind, occurredAt, eventId });
  const effects: EventEffects = { activity: [], notifications: [] };
  const mentions = (source: 'comment' | 'discussion' | 'content', sourceId: string, content: string | null, mentioned: readonly string[], occurredAt: string) => {
    for (const mentionedId of new Set(mentioned)) {
      effects.notifications.push({
        type: 'mention.created',
        occurredAt,
        dedupeKey: `mention:${fileId}:${source}:${sourceId}:${mentionedId}`,
        eventId,
        data: compact({ fileId, userId: mentionedId, byUserId: userId, source, sourceId, content: content ?? undefined }),
        activity: activity('mention', occurredAt, mentionedId),
      });
    }
  };

  switch (meaning.type) {
    case 'comment': {
      effects.activity.push(activity('comment', received));
      if (meaning.op === 'create') {
        effects.notifications.push({
          type: 'comment.created',
          occurredAt: received,
          dedupeKey: `comment:${fileId}:${meaning.guid}`,
          eventId,
          data: compact({
            fileId,
            userId,
            source: 'comment',
            commentId: meaning.guid,
            content: meaning.content,
            selectionGuid: meaning.selectionGuid,
            selectionTitle: meaning.selectionTitle,
            replyTo: meaning.replyTo,
            mentionedUserIds: meaning.mentioned,
          }),
        });
      }
      mentions('comment', meaning.guid, meaning.content, meaning.mentioned, received);
      break;
    }
    case 'discussion':
      effects.activity.push(activity('discussion', received));
      effects.notifications.push({
        type: 'comment.created',
        occurredAt: received,
        dedupeKey: `discussion:${fileId}:${meaning.id}`,
        eventId,
        data: { fileId, userId, source: 'discussion', commentId: meaning.id, content: meaning.content, mentionedUserIds: [] },
      });
      break;
    case 'mention':
      mentions(meaning.source, meaning.sourceId, meaning.content, meaning.mentioned, received);
      break;
    case 'reminder':
      effects.reminder =
        meaning.op === 'remove'
          ? { op: 'remove', fileId, id: meaning.id }
          : meaning.op === 'create'
            ? // Traditional documents send no recipients: the author is reminded.
              { op: 'create', fileId, id: meaning.id, authorId: userId, content: meaning.content, remindUserIds: meaning.remindUserIds ?? [userId], remindAtMs: meaning.remindAtMs }
            : {
                op: 'update',
                fileId,
                id: meaning.id,
                authorId: userId,
                ...(meaning.content === undefined ? {} : { content: meaning.content }),
                ...(meaning.remindUserIds === undefined ? {} : { remindUserIds: meaning.remindUserIds }),
                ...(meaning.remindAtMs === undefined ? {} : { remindAtMs: meaning.remindAtMs }),
              };
      break;
    case 'content': {
      const updatedAt = at(meaning.timestampMs);
      effects.activity.push(activity('edit', updatedAt));
      if (meaning.version === undefined) break;
      effects.fileVersion = { fileId, version: meaning.version, updatedAt };
      effects.notifications.push({
        type: 'file.updated',
        occurredAt: updatedAt,
        dedupeKey: `file:${fileId}:${meaning.version}`,
        eventId,
        data: { fileId, userId, version: meaning.version, updatedAt },
      });
      break;
    }
    case 'presence': {
      const atMs = Math.min(meaning.timestampMs ?? receivedMs, receivedMs);
      effects.presence = { fileId, userId, clientId: meaning.clientId, present: meaning.present, atMs };
      if (meaning.present) effects.activity.push(activity('open', formatTime(atMs)));
      break;
    }
    case 'revision': {
      const occurredAt = at(meaning.timestampMs);
      // The revisions table is keyed by number; one without an id is in the activity and notified only.
      if (meaning.revisionId !== undefined) {
        effects.revision = {
          fileId,
          revisionId: meaning.revisionId,
          action: meaning.op,
          userId,
          title: meaning.title ?? null,
          label: meaning.label ?? null,
          docHistoryId: meaning.docHistoryId ?? null,
          occurredAt,
          eventId,
        };
      }
      effects.activity.push(activity('revision', occurredAt));
      effects.notifications.push({
        type: 'revision.changed',
        occurredAt,
        dedupeKey: `revision:${eventId}`,
        eventId,
        data: compact({
          fileId,
          userId,
          action: meaning.op,
          revisionId: meaning.revisionId,
          title: meaning.title,
          label: meaning.label,
          docHistoryId: meaning.docHistoryId,
        }),
      });
      break;
    }
    case 'callback-failure':
    case 'logged':
      break;
  }
  return effects;
}

/**
 * A System callback error: counted per URL and status, and notified with URL, status and message only.
 * The failing request's headers carry the user's token and a signature, so they never leave; the URL and
 * the message are redacted of user-info and credential parameters.
 */
export function deriveCallbackFailure(meaning: Extract<Meaning, { type: 'callback-failure' }>, eventId: number, receivedMs: number): EventEffects {
  const occurredAt = formatTime(Math.min(meaning.timestampMs ?? receivedMs, receivedMs));
  const url = redactText(meaning.url).slice(0, MAX_URL_LENGTH);
  const errorMessage = meaning.errorMessage === null ? null : redactText(meaning.errorMessage);
  return {
    activity: [],
    callbackFailure: { url, status: meaning.status, error: errorMessage, at: occurredAt },
    notifications: [
      {
        type: 'callback.failed',
        occurredAt,
        dedupeKey: `callback:${eventId}`,
        eventId,
        data: compact({ appId: meaning.appId, url, status: meaning.status, errorMessage: errorMessage ?? undefined }),
      },
    ],
  };
}

/** Drops undefined members so the stored JSON has no holes. */
function compact(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
}
