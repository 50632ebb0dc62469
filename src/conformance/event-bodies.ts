import { randomUUID } from 'node:crypto';

/** The event kinds of part 6, as the `X-Platform-Sdk-Event` header names them. */
export const EVENT_KINDS = ['Comment', 'Discussion', 'MentionAt', 'DateMention', 'FileContent', 'Collaborator', 'Revision', 'System'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** How the platform authenticates each kind (part 5 and 6): FileContent and Collaborator are signed. */
export function eventCredential(kind: EventKind): 'token' | 'signature' | 'either' {
  if (kind === 'FileContent' || kind === 'Collaborator') return 'signature';
  return kind === 'System' ? 'either' : 'token';
}

/** The actions each kind takes (part 6); the first is the default. */
export const EVENT_ACTIONS: Record<EventKind, readonly string[]> = {
  Comment: ['create', 'update', 'delete', 'closeComments'],
  Discussion: ['create'],
  MentionAt: ['comment', 'discussion', 'mention_at'],
  DateMention: ['create', 'update', 'remove'],
  FileContent: ['update'],
  Collaborator: ['enter', 'leave'],
  Revision: ['create', 'update', 'delete'],
  System: ['endpointCallback'],
};

export interface EventSubject {
  fileId: string;
  /** The acting user. */
  userId: string;
  /** Another user to mention or remind (defaults to the acting user). */
  otherUserId?: string;
  /** Id of the comment, reminder or revision the event is about (fresh when absent). */
  id?: string;
  /** The platform's appId (System events). */
  appId?: string;
  /** When a date reminder is due (DateMention create and update); a day ahead by default. */
  remindAt?: string;
}

/**
 * A body of the given kind and action with every field part 6 lists. For MentionAt the "action" picks the
 * `type` (comment, discussion or mention_at); its action is always `create`.
 */
export function eventBody(kind: EventKind, action: string, subject: EventSubject): Record<string, unknown> {
  const { fileId, userId } = subject;
  const other = subject.otherUserId ?? userId;
  const id = subject.id ?? `conformance-${randomUUID()}`;
  const now = Date.now();
  const common = { fileId, userId };
  switch (kind) {
    case 'Comment': {
      if (action === 'delete') return { kind: 'comment', type: 'comment', action, ...common, deleteComment: { guid: id, selectionGuid: `${id}-sel` } };
      if (action === 'closeComments') return { kind: 'comment', type: 'comment', action, ...common, closeComment: { selectionGuid: `${id}-sel` } };
      const comment = { guid: id, content: 'conformance comment', userIds: [other], selectionGuid: `${id}-sel` };
      if (action === 'update') return { kind: 'comment', type: 'comment', action, ...common, comment };
      return { kind: 'comment', type: 'comment', action: 'create', ...common, comment: { ...comment, selectionContent: 'selected text', selectionTitle: 'sheet1' } };
    }
    case 'Discussion':
      return { kind: 'discussion', type: 'discussion', action: 'create', ...common, discussion: { id, unixus: now * 1000, content: 'conformance discussion', positionId: '' } };
    case 'MentionAt': {
      const base = { kind: 'mention_at', action: 'create', ...common };
      if (action === 'comment') return { ...base, type: 'comment', comment: { guid: id, selectionGuid: `${id}-sel`, content: 'hello @', userIds: [other] } };
      if (action === 'discussion') return { ...base, type: 'discussion', discussion: { id, unixus: now * 1000, content: 'hello @', userIds: [other] } };
      return { ...base, type: 'mention_at', mentionAt: { guid: id, userId: other, content: 'hello ' } };
    }
    case 'DateMention': {
      const base = { kind: 'mention', type: 'date_mention', action, ...common };
      const remindAt = subject.remindAt ?? new Date(now + 24 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      if (action === 'remove') return { ...base, removeData: { id } };
      if (action === 'update') return { ...base, updateData: { id, content: 'conformance reminder (moved)', remindUserIds: [other], remindAt, positionId: '' } };
      return { ...base, action: 'create', createData: { id, fileId, authorId: userId, content: 'conformance reminder', remindUserIds: [other], remindAt, positionId: '' } };
    }
    case 'FileContent':
      return { kind: 'fileContent', type: 'fileContent', action: 'update', ...common, fileContent: { version: Math.floor(now / 1000), timestamp: now } };
    case 'Collaborator':
      return { kind: 'collaborator', action: action === 'leave' ? 'leave' : 'enter', ...common, collaboratorChanged: { clientId: id, timestamp: now } };
    case 'Revision':
      return {
        kind: 'revision',
        action,
        ...common,
        revision: { revisionId: numericId(id), title: 'conformance revision', label: 'v1', docHistoryId: id, timestamp: now },
      };
    case 'System':
      return {
        kind: 'System',
        type: 'endpointCallback',
        appId: subject.appId ?? 'conformance',
        timestamp: now,
        request: { headers: { Accept: 'application/json', 'X-Platform-Credential-Type': '0' }, url: `/files/${fileId}`, body: '' },
        response: { headers: {}, status: 404, body: '{"error":"not found"}' },
        errorMessage: `callback GET /files/${fileId} failed with HTTP 404`,
      };
  }
}

/** A stable positive number for an id (revision ids are numbers), so create, update and delete agree. */
function numericId(id: string): number {
  let hash = 7;
  for (const char of id) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) % 1_000_000_007;
  return hash;
}
