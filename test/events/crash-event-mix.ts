import { mintSignature } from '../../src/auth/platform-signature.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import { formatTime } from '../../src/directory/time.js';
import { eventBody, type EventKind } from '../../src/conformance/event-bodies.js';

/**
 * The events of the crash test (issue 23 item 3): every kind and action of interface part 6, sent the way
 * the platform sends them (token or signature), each with what its effects must be once processed. Every
 * body is unique (its delivery key is the hash of the body), and every text in it carries a tag
 * (`tag:<id>`) so a message that quotes it can be traced back to its event.
 */

export const APP = { appId: 'crash-app', appSecret: 'crash-app-secret-0123456789' };
export const FILE = 'plan-2024q3';
/** The author of every event (the file's creator) and the person mentioned and reminded. */
export const ACTOR = 'zhangsan';
export const OTHER = 'lisi';

/** What an acknowledged event must have left once processed, counted by its event id. */
export interface Expected {
  /** Notifications by type made from this event (mentions: one per mentioned person). */
  notifications: Record<string, number>;
  /** Activity rows by kind written by this event. */
  activity: Record<string, number>;
  /** A revisions row written by this event. */
  revision?: boolean;
  /** The reminder this event is the last word on, and its final status. */
  reminder?: { id: string; status: 'fired' | 'cancelled' };
}

export interface MixEvent {
  kind: EventKind;
  action: string;
  /** The exact body sent (again, unchanged, until acknowledged). */
  body: string;
  headers: () => Record<string, string>;
  expected: Expected;
}

export function eventHeaders(kind: EventKind, tokenSecret: string, fileId = FILE): () => Record<string, string> {
  const base = { 'content-type': 'application/json', 'x-platform-sdk-event': kind };
  if (kind === 'FileContent' || kind === 'Collaborator') {
    return () => ({ ...base, 'x-platform-credential-type': '3', 'x-platform-signature': mintSignature(APP, { ttlSeconds: 240, fileId, userId: ACTOR }) });
  }
  return () => ({ ...base, 'x-platform-token': mintUserToken(ACTOR, tokenSecret, 3600) });
}

/** Replaces every text of a conformance body that quotes content by one carrying the tag. */
function tagged(body: Record<string, unknown>, tag: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(body, (key, value: unknown) => (key === 'content' && typeof value === 'string' ? `${value} tag:${tag}` : value))) as Record<string, unknown>;
}

/**
 * The `index`-th step of the mix: one or two events (a reminder moved or removed needs its create first,
 * sent and acknowledged before). `dueInMs` is when a reminder that must fire is due from now.
 */
export function mixStep(index: number, tokenSecret: string, options: { dueInMs: number; version: number }): MixEvent[] {
  const steps = STEPS.length;
  const step = STEPS[index % steps]!;
  const id = `m${index}`;
  const subject = { fileId: FILE, userId: ACTOR, otherUserId: OTHER, id, appId: APP.appId };
  const make = (kind: EventKind, action: string, expected: Expected, extra: Partial<typeof subject> & { remindAt?: string } = {}): MixEvent => {
    let body = tagged(eventBody(kind, action, { ...subject, ...extra }), extra.id ?? id);
    if (kind === 'FileContent') body = { ...body, fileContent: { version: options.version, timestamp: Date.now() } };
    return { kind, action, body: JSON.stringify(body), headers: eventHeaders(kind, tokenSecret), expected };
  };
  const soon = formatTime(Date.now() + options.dueInMs);
  const none = { notifications: {}, activity: {} };
  switch (step) {
    case 'comment':
      return [make('Comment', 'create', { notifications: { 'comment.created': 1, 'mention.created': 1 }, activity: { comment: 1, mention: 1 } })];
    case 'comment-update':
      // An update mentioning someone notifies the mention (its own comment guid: a first mention).
      return [make('Comment', 'update', { notifications: { 'mention.created': 1 }, activity: { comment: 1, mention: 1 } })];
    case 'comment-delete':
      return [make('Comment', 'delete', none)];
    case 'comments-close':
      return [make('Comment', 'closeComments', none)];
    case 'discussion':
      return [make('Discussion', 'create', { notifications: { 'comment.created': 1 }, activity: { discussion: 1 } })];
    case 'mention-comment':
    case 'mention-discussion':
    case 'mention-content':
      return [
        make('MentionAt', step === 'mention-comment' ? 'comment' : step === 'mention-discussion' ? 'discussion' : 'mention_at', {
          notifications: { 'mention.created': 1 },
          activity: { mention: 1 },
        }),
      ];
    case 'reminder':
      return [make('DateMention', 'create', { ...none, reminder: { id, status: 'fired' } }, { remindAt: soon })];
    case 'reminder-moved':
      // Created a day ahead, then moved to `soon`: it fires once, at the new time.
      return [make('DateMention', 'create', none), make('DateMention', 'update', { ...none, reminder: { id, status: 'fired' } }, { remindAt: soon })];
    case 'reminder-removed':
      return [make('DateMention', 'create', none), make('DateMention', 'remove', { ...none, reminder: { id, status: 'cancelled' } })];
    case 'content':
      return [make('FileContent', 'update', { notifications: { 'file.updated': 1 }, activity: { edit: 1 } })];
    case 'enter':
      return [make('Collaborator', 'enter', { notifications: {}, activity: { open: 1 } })];
    case 'leave':
      return [make('Collaborator', 'leave', none)];
    case 'revision-create':
    case 'revision-update':
    case 'revision-delete':
      return [make('Revision', step.slice('revision-'.length), { notifications: { 'revision.changed': 1 }, activity: { revision: 1 }, revision: true })];
    case 'system':
      return [make('System', 'endpointCallback', { notifications: { 'callback.failed': 1 }, activity: {} })];
  }
}

/** Every kind and action of part 6, in the order the mix cycles through them. */
const STEPS = [
  'comment',
  'reminder',
  'content',
  'mention-comment',
  'discussion',
  'revision-create',
  'enter',
  'reminder-moved',
  'system',
  'comment-update',
  'mention-discussion',
  'revision-update',
  'leave',
  'reminder-removed',
  'mention-content',
  'comment-delete',
  'revision-delete',
  'comments-close',
] as const;

export const MIX_STEPS = STEPS.length;
