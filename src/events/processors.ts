import { formatTime } from '../directory/time.js';
import { redactUrl } from '../logger.js';
import type { KnownEvent } from './event-schemas.js';

/** The notification types of contracts.md, "Outgoing notifications". */
export type NotificationType = 'reminder.due' | 'mention.created' | 'comment.created' | 'file.updated' | 'revision.changed' | 'callback.failed';

export interface ActivityDraft {
  userId: string;
  fileId: string | null;
  relatedUserId: string | null;
  /** open | edit | comment | discussion | mention | revision */
  kind: string;
  occurredAt: string;
}

export interface NotificationDraft {
  type: NotificationType;
  occurredAt: string;
  data: Record<string, unknown>;
  /** One fact reported by two events (a comment's mention and its MentionAt) is notified once. */
  dedupeKey?: string;
  /** Activity written only when this notification is new (so a deduplicated mention counts once). */
  activity?: ActivityDraft;
}

export type ReminderChange =
  | { op: 'create'; fileId: string; id: string; authorId: string; content: string; remindUserIds: string[]; remindAtMs: number }
  | { op: 'update'; fileId: string; id: string; authorId: string; content?: string; remindUserIds?: string[]; remindAtMs?: number }
  | { op: 'remove'; fileId: string; id: string };

export interface PresenceChange {
  fileId: string;
  userId: string;
  clientId: string;
  present: boolean;
  atMs: number;
}

export interface RevisionEntry {
  fileId: string;
  revisionId: number;
  action: string;
  userId: string;
  title: string | null;
  label: string | null;
  docHistoryId: string | null;
  occurredAt: string;
}

/** Everything one event derives; written in the transaction that appends the event. */
export interface Effects {
  activity: ActivityDraft[];
  notifications: NotificationDraft[];
  reminder?: ReminderChange;
  presence?: PresenceChange;
  fileVersion?: { fileId: string; version: number; updatedAt: string };
  revision?: RevisionEntry;
  callbackFailure?: { url: string; status: number; error: string | null; at: string };
}

/**
 * What an event of a known kind and action means, as data: no I/O here. `receivedMs` stands in for the
 * event's time when the body carries none, and caps a platform timestamp from the future.
 */
export function deriveEffects(event: KnownEvent, receivedMs: number): Effects {
  const received = formatTime(receivedMs);
  const at = (timestamp: number | undefined) => formatTime(Math.min(timestamp ?? receivedMs, receivedMs));
  const effects: Effects = { activity: [], notifications: [] };

  switch (event.kind) {
    case 'Comment': {
      const { body } = event;
      if (body.action === 'create' || body.action === 'update') {
        const { comment } = body;
        effects.activity.push(activity(body.userId, body.fileId, 'comment', received));
        if (body.action === 'create') {
          const created = body.comment;
          effects.notifications.push({
            type: 'comment.created',
            occurredAt: received,
            dedupeKey: `comment:${body.fileId}:${comment.guid}`,
            data: compact({
              fileId: body.fileId,
              userId: body.userId,
              source: 'comment',
              commentId: comment.guid,
              content: comment.content,
              selectionGuid: comment.selectionGuid,
              selectionTitle: created.selectionTitle,
              replyTo: created.replyTo,
              mentionedUserIds: comment.userIds ?? [],
            }),
          });
        }
        mentions(effects, body.fileId, body.userId, 'comment', comment.guid, comment.content, comment.userIds ?? [], received);
      }
      break;
    }
    case 'Discussion': {
      const { body } = event;
      effects.activity.push(activity(body.userId, body.fileId, 'discussion', received));
      effects.notifications.push({
        type: 'comment.created',
        occurredAt: received,
        dedupeKey: `discussion:${body.fileId}:${body.discussion.id}`,
        data: { fileId: body.fileId, userId: body.userId, source: 'discussion', commentId: body.discussion.id, content: body.discussion.content, mentionedUserIds: [] },
      });
      break;
    }
    case 'MentionAt': {
      const { body } = event;
      if (body.type === 'comment') {
        mentions(effects, body.fileId, body.userId, 'comment', body.comment.guid, body.comment.content, body.comment.userIds, received);
      } else if (body.type === 'discussion') {
        mentions(effects, body.fileId, body.userId, 'discussion', body.discussion.id, body.discussion.content, body.discussion.userIds, received);
      } else {
        const { mentionAt } = body;
        mentions(effects, body.fileId, body.userId, 'content', mentionAt.guid, mentionAt.content ?? null, [mentionAt.userId], received);
      }
      break;
    }
    case 'DateMention': {
      const { body } = event;
      if (body.action === 'create') {
        const data = body.createData;
        const authorId = data.authorId ?? body.userId;
        effects.reminder = {
          op: 'create',
          fileId: body.fileId,
          id: data.id,
          authorId,
          content: data.content,
          // Traditional documents send no recipients: the author is reminded.
          remindUserIds: data.remindUserIds ?? [authorId],
          remindAtMs: Date.parse(data.remindAt),
        };
      } else if (body.action === 'update') {
        const data = body.updateData;
        effects.reminder = {
          op: 'update',
          fileId: body.fileId,
          id: data.id,
          authorId: body.userId,
          ...(data.content === undefined ? {} : { content: data.content }),
          ...(data.remindUserIds === undefined ? {} : { remindUserIds: data.remindUserIds }),
          ...(data.remindAt === undefined ? {} : { remindAtMs: Date.parse(data.remindAt) }),
        };
      } else {
        effects.reminder = { op: 'remove', fileId: body.fileId, id: body.removeData.id };
      }
      break;
    }
    case 'FileContent': {
      const { body } = event;
      const updatedAt = at(body.fileContent.timestamp);
      effects.fileVersion = { fileId: body.fileId, version: body.fileContent.version, updatedAt };
      effects.activity.push(activity(body.userId, body.fileId, 'edit', updatedAt));
      effects.notifications.push({
        type: 'file.updated',
        occurredAt: updatedAt,
        dedupeKey: `file:${body.fileId}:${body.fileContent.version}`,
        data: { fileId: body.fileId, userId: body.userId, version: body.fileContent.version, updatedAt },
      });
      break;
    }
    case 'Collaborator': {
      const { body } = event;
      const change = body.collaboratorChanged;
      effects.presence = { fileId: body.fileId, userId: body.userId, clientId: change.clientId, present: body.action === 'enter', atMs: change.timestamp };
      if (body.action === 'enter') effects.activity.push(activity(body.userId, body.fileId, 'open', at(change.timestamp)));
      break;
    }
    case 'Revision': {
      const { body } = event;
      const { revision } = body;
      const occurredAt = at(revision.timestamp ?? body.timestamp);
      effects.revision = {
        fileId: body.fileId,
        revisionId: revision.revisionId,
        action: body.action,
        userId: body.userId,
        title: revision.title ?? null,
        label: revision.label ?? null,
        docHistoryId: revision.docHistoryId ?? null,
        occurredAt,
      };
      effects.activity.push(activity(body.userId, body.fileId, 'revision', occurredAt));
      effects.notifications.push({
        type: 'revision.changed',
        occurredAt,
        data: compact({
          fileId: body.fileId,
          userId: body.userId,
          action: body.action,
          revisionId: revision.revisionId,
          title: revision.title,
          label: revision.label,
          docHistoryId: revision.docHistoryId,
        }),
      });
      break;
    }
    case 'System': {
      const { body } = event;
      const occurredAt = at(body.timestamp);
      const error = body.errorMessage ?? null;
      // The failing request's headers carry the user's token and a signature: only URL, status and message leave.
      const url = redactUrl(body.request?.url ?? /https?:\/\/\S+/.exec(error ?? '')?.[0] ?? '');
      const status = body.response?.status ?? Number(/\b([1-5]\d\d)\b/.exec(error ?? '')?.[1] ?? 0);
      effects.callbackFailure = { url, status, error, at: occurredAt };
      effects.notifications.push({
        type: 'callback.failed',
        occurredAt,
        data: compact({ appId: body.appId, url, status, errorMessage: error ?? undefined }),
      });
      break;
    }
  }
  return effects;
}

function activity(userId: string, fileId: string, kind: string, occurredAt: string, relatedUserId: string | null = null): ActivityDraft {
  return { userId, fileId, relatedUserId, kind, occurredAt };
}

/** One `mention.created` per mentioned user, keyed so that the comment and its MentionAt notify once. */
function mentions(
  effects: Effects,
  fileId: string,
  byUserId: string,
  source: 'comment' | 'discussion' | 'content',
  sourceId: string,
  content: string | null,
  userIds: readonly string[],
  occurredAt: string,
): void {
  for (const userId of new Set(userIds)) {
    effects.notifications.push({
      type: 'mention.created',
      occurredAt,
      dedupeKey: `mention:${fileId}:${source}:${sourceId}:${userId}`,
      data: compact({ fileId, userId, byUserId, source, sourceId, content: content ?? undefined }),
      activity: activity(byUserId, fileId, 'mention', occurredAt, userId),
    });
  }
}

/** Drops undefined members so the stored JSON has no holes. */
function compact(data: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).filter(([, value]) => value !== undefined));
}
