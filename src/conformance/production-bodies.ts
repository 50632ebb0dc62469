import { randomUUID } from 'node:crypto';
import type { EventKind, EventSubject } from './event-bodies.js';

/**
 * Event bodies as the production platform sends them, where they differ from interface part 6
 * (platform-api.md section 5, from the platform's demo): ids only inside the kind's own object,
 * `timestamp` at the top level, `like` actions, FileContent `auto_mention` without `userId`, Discussion
 * `position`, a second System type. Every variant here must be acknowledged and stored by a tolerant
 * integrator. The variant names are what `simulate push --shape production --action` takes.
 */
export const PRODUCTION_VARIANTS: Record<EventKind, readonly string[]> = {
  Comment: ['like', 'delete'],
  Discussion: ['create', 'like'],
  MentionAt: ['mention_at'],
  DateMention: ['create', 'update', 'remove'],
  FileContent: ['update', 'auto_mention'],
  Collaborator: ['enter', 'leave'],
  Revision: ['create', 'delete'],
  System: ['license_expiring'],
};

/**
 * The production body of a kind's variant. Comment `delete` carries only the selection; Discussion
 * `create` names its anchor `position`; DateMention carries the file and author only inside `createData`
 * (update and remove name no file or user at all); FileContent and Collaborator put `timestamp` at the top
 * level, and `auto_mention` has no `userId` (the acting user is `autoMention.editorProviderId`); the
 * System type `license_expiring` stands for "any other type" (the real value is not shown in the sources).
 */
export function productionEventBody(kind: EventKind, variant: string, subject: EventSubject): Record<string, unknown> {
  const { fileId, userId } = subject;
  const other = subject.otherUserId ?? userId;
  const id = subject.id ?? `conformance-${randomUUID()}`;
  const now = Date.now();
  switch (kind) {
    case 'Comment':
      if (variant === 'delete') return { kind: 'comment', type: 'comment', action: 'delete', fileId, userId, deleteComment: { selectionGuid: `${id}-sel` } };
      return { kind: 'comment', type: 'comment', action: 'like', fileId, userId, likeComment: { selectionGuid: `${id}-sel`, content: 'liked comment' } };
    case 'Discussion':
      if (variant === 'like') return { kind: 'discussion', type: 'discussion', action: 'like', fileId, userId, likeDiscussion: { id, content: 'liked discussion' } };
      return {
        kind: 'discussion',
        type: 'discussion',
        action: 'create',
        fileId,
        userId,
        discussion: { id, unixus: now * 1000, content: 'production discussion', position: `${id}-pos` },
      };
    case 'MentionAt':
      return { kind: 'mention_at', type: 'mention_at', action: 'create', fileId, userId, mentionAt: { guid: id, userId: other } };
    case 'DateMention': {
      const remindAt = subject.remindAt ?? new Date(now + 24 * 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const base = { kind: 'mention', type: 'date_mention' };
      if (variant === 'remove') return { ...base, action: 'remove', removeData: { id } };
      if (variant === 'update') return { ...base, action: 'update', updateData: { id, remindAt, remindUserIds: [other] } };
      return { ...base, action: 'create', createData: { id, fileId, authorId: userId, content: 'production reminder', remindUserIds: [other], remindAt } };
    }
    case 'FileContent':
      if (variant === 'auto_mention') return { kind: 'fileContent', type: 'auto_mention', action: 'update', fileId, timestamp: now, autoMention: { editorProviderId: userId } };
      return { kind: 'fileContent', type: 'fileContent', action: 'update', fileId, userId, timestamp: now, fileContent: { version: Math.floor(now / 1000) } };
    case 'Collaborator':
      return { kind: 'collaborator', action: variant === 'leave' ? 'leave' : 'enter', fileId, userId, timestamp: now };
    case 'Revision':
      return { kind: 'revision', action: variant === 'delete' ? 'delete' : 'create', fileId, userId, revision: { title: 'production revision' } };
    case 'System':
      return { kind: 'System', type: 'license_expiring', appId: subject.appId ?? 'conformance', timestamp: now };
  }
}
