import { kindName, knownKind, type EventKind } from './event-kinds.js';
import { FieldReader, isFields, type Fields } from './event-fields.js';
import { readInstant } from './event-time.js';

/**
 * The tolerant reader: what an event body means, read from every place the platform may put a field
 * (interface part 6 and the production shapes of platform-api.md section 5). It never refuses a body:
 * what it cannot read becomes a problem, and the event is kept as `unprocessed` with it.
 */

/** What an event says happened, in the terms its effects are derived from. */
export type Meaning =
  | { type: 'comment'; op: 'create' | 'update'; guid: string; content: string; mentioned: string[]; selectionGuid?: string; selectionTitle?: string; replyTo?: string }
  | { type: 'discussion'; id: string; content: string }
  | { type: 'mention'; source: 'comment' | 'discussion' | 'content'; sourceId: string; content: string | null; mentioned: string[] }
  | { type: 'reminder'; op: 'create'; id: string; content: string; remindUserIds?: string[]; remindAtMs: number }
  | { type: 'reminder'; op: 'update'; id: string; content?: string; remindUserIds?: string[]; remindAtMs?: number }
  | { type: 'reminder'; op: 'remove'; id: string }
  /** A content update; without a version (auto_mention, or a version out of range) only the activity. */
  | { type: 'content'; version?: number; timestampMs?: number }
  | { type: 'presence'; present: boolean; clientId: string; timestampMs?: number }
  /** `key`: the revision id, else what the body carries (`history:…`, `title:…`); production may send no id. */
  | { type: 'revision'; op: string; key: string; revisionId?: number; title?: string; label?: string; docHistoryId?: string; timestampMs?: number }
  | { type: 'callback-failure'; appId?: string; url: string; status: number; errorMessage: string | null; timestampMs?: number }
  /** Understood, and kept in the log only: comment delete, closeComments, likes, the platform's other System notices. */
  | { type: 'logged' };

/** A field of the body that names who acts, with the value found there. */
export interface ActorField {
  path: string;
  value: unknown;
}

export interface ReadEvent {
  kind: EventKind | undefined;
  /** The variant as the body names it: the action (MentionAt: its `type`; System: its `type`). */
  variant: string | undefined;
  /** The file, wherever the body names it. */
  fileId: string | undefined;
  /** Every actor field present in the body (top-level `userId`, `createData.authorId`, …). */
  actors: ActorField[];
  /** What the event is about beyond the file: a reminder or a revision. */
  subject: string | undefined;
  meaning: Meaning | undefined;
  /** What could not be read; an event with problems is `unprocessed`. */
  problems: string[];
}

/** The largest content version a file keeps (files.version is a 32-bit integer on PostgreSQL). */
const MAX_VERSION = 2_147_483_647;
const ACTOR_PATHS: ReadonlyArray<readonly [string, string]> = [
  ['createData', 'authorId'],
  ['updateData', 'authorId'],
  ['autoMention', 'editorProviderId'],
];

/** Reads a body pushed under the header kind `headerKind` (known or not). */
export function readEvent(headerKind: string, body: unknown): ReadEvent {
  const kind = knownKind(headerKind);
  const fields = new FieldReader();
  const top: Fields = isFields(body) ? body : {};
  if (!isFields(body)) fields.problem('body', 'is not a JSON object');
  const read: ReadEvent = { kind, variant: undefined, fileId: readFileId(top, fields), actors: readActors(top), subject: undefined, meaning: undefined, problems: fields.problems };
  if (kind === undefined) {
    fields.problem('kind', `${JSON.stringify(headerKind)} is not a kind collab-host knows`);
    return read;
  }
  READERS[kind](top, fields, read);
  return read;
}

/** The file: top-level `fileId`, else the `fileId` of the kind's own object (`createData.fileId`, …). */
function readFileId(top: Fields, fields: FieldReader): string | undefined {
  const found = new Map<string, string>();
  const topLevel = fields.id(top.fileId, 'fileId');
  if (topLevel !== undefined) found.set('fileId', topLevel);
  for (const [name, value] of Object.entries(top)) {
    if (isFields(value) && value.fileId !== undefined) {
      const nested = fields.id(value.fileId, `${name}.fileId`);
      if (nested !== undefined) found.set(`${name}.fileId`, nested);
    }
  }
  const distinct = new Set(found.values());
  if (distinct.size > 1) {
    fields.problem([...found.keys()].join(' and '), 'name different files');
    return topLevel;
  }
  return distinct.values().next().value;
}

function readActors(top: Fields): ActorField[] {
  const actors: ActorField[] = [];
  if (present(top.userId)) actors.push({ path: 'userId', value: top.userId });
  for (const [object, field] of ACTOR_PATHS) {
    const container = top[object];
    if (isFields(container) && present(container[field])) actors.push({ path: `${object}.${field}`, value: container[field] });
  }
  return actors;
}

const present = (value: unknown) => value !== undefined && value !== null && value !== '';

type KindReader = (top: Fields, fields: FieldReader, read: ReadEvent) => void;

function unknownVariant(fields: FieldReader, kind: EventKind, read: ReadEvent, what = 'action'): void {
  fields.problem(what, `${JSON.stringify(read.variant ?? null)} is not one collab-host knows for ${kind}`);
}

const READERS: Record<EventKind, KindReader> = {
  Comment(top, fields, read) {
    read.variant = fields.text(top.action, 'action');
    if (read.variant === 'create' || read.variant === 'update') {
      const comment = fields.object(top.comment, 'comment', true);
      const guid = comment && fields.id(comment.guid, 'comment.guid', true);
      if (!comment || guid === undefined) return;
      read.meaning = {
        type: 'comment',
        op: read.variant,
        guid,
        content: fields.text(comment.content, 'comment.content') ?? '',
        mentioned: fields.ids(comment.userIds, 'comment.userIds') ?? [],
        ...optional('selectionGuid', fields.text(comment.selectionGuid, 'comment.selectionGuid')),
        ...optional('selectionTitle', fields.text(comment.selectionTitle, 'comment.selectionTitle')),
        ...optional('replyTo', fields.text(comment.replyTo, 'comment.replyTo')),
      };
    } else if (read.variant === 'delete' || read.variant === 'closeComments' || read.variant === 'like') {
      read.meaning = { type: 'logged' };
    } else unknownVariant(fields, 'Comment', read);
  },

  Discussion(top, fields, read) {
    read.variant = fields.text(top.action, 'action');
    if (read.variant === 'create') {
      const discussion = fields.object(top.discussion, 'discussion', true);
      const id = discussion && fields.id(discussion.id, 'discussion.id', true);
      if (!discussion || id === undefined) return;
      read.meaning = { type: 'discussion', id, content: fields.text(discussion.content, 'discussion.content') ?? '' };
    } else if (read.variant === 'like') {
      read.meaning = { type: 'logged' };
    } else unknownVariant(fields, 'Discussion', read);
  },

  MentionAt(top, fields, read) {
    const action = fields.text(top.action, 'action');
    read.variant = action === undefined || action === 'create' ? fields.text(top.type, 'type') : action;
    const source = read.variant === 'comment' ? 'comment' : read.variant === 'discussion' ? 'discussion' : read.variant === 'mention_at' ? 'content' : undefined;
    if (source === undefined) return unknownVariant(fields, 'MentionAt', read, 'type');
    const name = source === 'content' ? 'mentionAt' : source;
    const object = fields.object(top[name], name, true);
    const sourceId = object && fields.id(source === 'discussion' ? object.id : object.guid, `${name}.${source === 'discussion' ? 'id' : 'guid'}`, true);
    if (!object || sourceId === undefined) return;
    const single = source === 'content' ? fields.id(object.userId, `${name}.userId`) : undefined;
    const mentioned = [...(single === undefined ? [] : [single]), ...(fields.ids(object.userIds, `${name}.userIds`) ?? [])];
    read.meaning = { type: 'mention', source, sourceId, content: fields.text(object.content, `${name}.content`) ?? null, mentioned };
  },

  DateMention(top, fields, read) {
    read.variant = fields.text(top.action, 'action');
    if (typeof top.type === 'string' && kindName(top.type) !== 'datemention') fields.problem('type', `${JSON.stringify(top.type)} is not date_mention`);
    const op = read.variant;
    if (op !== 'create' && op !== 'update' && op !== 'remove') return unknownVariant(fields, 'DateMention', read);
    const name = `${op}Data`;
    const data = fields.object(top[name], name, true);
    const id = data && fields.id(data.id, `${name}.id`, true);
    if (!data || id === undefined) return;
    read.subject = `reminder:${id}`;
    if (fields.problems.length > 0) return; // a reminder changes only on a body read whole
    if (op === 'remove') {
      read.meaning = { type: 'reminder', op, id };
      return;
    }
    const content = fields.text(data.content, `${name}.content`);
    const remindUserIds = fields.ids(data.remindUserIds, `${name}.remindUserIds`);
    let remindAtMs: number | undefined;
    if (data.remindAt !== undefined && data.remindAt !== null) {
      const instant = readInstant(data.remindAt);
      if (instant.ok) remindAtMs = instant.ms;
      else fields.problem(`${name}.remindAt`, instant.problem);
    } else if (op === 'create') fields.problem(`${name}.remindAt`, 'is missing');
    if (fields.problems.length > 0) return;
    const recipients = optional('remindUserIds', remindUserIds);
    read.meaning =
      op === 'create'
        ? { type: 'reminder', op, id, content: content ?? '', remindAtMs: remindAtMs!, ...recipients }
        : { type: 'reminder', op, id, ...optional('content', content), ...optional('remindAtMs', remindAtMs), ...recipients };
  },

  FileContent(top, fields, read) {
    const type = fields.text(top.type, 'type');
    read.variant = type === 'auto_mention' ? type : (fields.text(top.action, 'action') ?? 'update');
    if (read.variant === 'auto_mention') {
      read.meaning = { type: 'content', ...optional('timestampMs', fields.millis(top.timestamp, 'timestamp')) };
      return;
    }
    if (read.variant !== 'update') return unknownVariant(fields, 'FileContent', read);
    const content = fields.object(top.fileContent, 'fileContent', true) ?? {};
    const version = fields.integer(content.version, 'fileContent.version', { min: 0, max: MAX_VERSION }, true);
    const timestampMs = content.timestamp !== undefined ? fields.millis(content.timestamp, 'fileContent.timestamp') : fields.millis(top.timestamp, 'timestamp');
    read.meaning = { type: 'content', ...optional('version', version), ...optional('timestampMs', timestampMs) };
  },

  Collaborator(top, fields, read) {
    read.variant = fields.text(top.action, 'action');
    if (read.variant !== 'enter' && read.variant !== 'leave') return unknownVariant(fields, 'Collaborator', read);
    const changed = fields.object(top.collaboratorChanged, 'collaboratorChanged') ?? {};
    const timestampMs = changed.timestamp !== undefined ? fields.millis(changed.timestamp, 'collaboratorChanged.timestamp') : fields.millis(top.timestamp, 'timestamp');
    // One user may have several clients; a body without a client id counts as one unnamed client.
    const clientId = fields.id(changed.clientId, 'collaboratorChanged.clientId') ?? '';
    read.meaning = { type: 'presence', present: read.variant === 'enter', clientId, ...optional('timestampMs', timestampMs) };
  },

  Revision(top, fields, read) {
    read.variant = fields.text(top.action, 'action');
    if (read.variant !== 'create' && read.variant !== 'update' && read.variant !== 'delete') return unknownVariant(fields, 'Revision', read);
    const revision = fields.object(top.revision, 'revision', true);
    if (!revision) return;
    const revisionId = fields.integer(revision.revisionId, 'revision.revisionId', { min: 0, max: Number.MAX_SAFE_INTEGER });
    const title = fields.text(revision.title, 'revision.title');
    const docHistoryId = fields.text(revision.docHistoryId, 'revision.docHistoryId');
    // Production sends revisions with only a title (platform-api.md section 5): keyed by what they carry.
    const key = revisionId !== undefined ? String(revisionId) : docHistoryId !== undefined ? `history:${docHistoryId}` : title !== undefined ? `title:${title}` : undefined;
    if (key === undefined) return fields.problem('revision', 'has no revisionId, docHistoryId or title to know it by');
    read.subject = `revision:${key}`;
    const timestampMs = revision.timestamp !== undefined ? fields.millis(revision.timestamp, 'revision.timestamp') : fields.millis(top.timestamp, 'timestamp');
    read.meaning = {
      type: 'revision',
      op: read.variant,
      key,
      ...optional('revisionId', revisionId),
      ...optional('title', title),
      ...optional('label', fields.text(revision.label, 'revision.label')),
      ...optional('docHistoryId', docHistoryId),
      ...optional('timestampMs', timestampMs),
    };
  },

  System(top, fields, read) {
    read.variant = fields.text(top.type, 'type');
    if (read.variant === undefined) return fields.problem('type', 'is missing');
    // Any other type is the platform's notice that the licence is about to expire (platform-api.md section 5):
    // kept in the log, as the platform's own console shows it.
    if (read.variant !== 'endpointCallback') {
      read.meaning = { type: 'logged' };
      return;
    }
    const request = fields.object(top.request, 'request') ?? {};
    const response = fields.object(top.response, 'response') ?? {};
    const errorMessage = fields.text(top.errorMessage, 'errorMessage') ?? null;
    const url = fields.text(request.url, 'request.url') ?? /https?:\/\/\S+/.exec(errorMessage ?? '')?.[0] ?? '';
    const status = fields.integer(response.status, 'response.status', { min: 0, max: 999 }) ?? Number(/\b([1-5]\d\d)\b/.exec(errorMessage ?? '')?.[1] ?? 0);
    read.meaning = {
      type: 'callback-failure',
      url,
      status,
      errorMessage,
      ...optional('appId', fields.text(top.appId, 'appId')),
      ...optional('timestampMs', fields.millis(top.timestamp, 'timestamp')),
    };
  },
};

/** `{ [name]: value }` when the value is present, else nothing (so optional fields stay absent). */
function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [name]: value }) as { [P in K]?: V };
}
