import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { EventKind } from './event-kinds.js';

/**
 * One schema per event kind and action (interface part 6). Fields that some document kind omits are
 * optional (slides send no mentions, traditional documents no `remindUserIds`, the spreadsheet no
 * `selectionContent`, …); what every document kind sends is required. Unknown extra fields are allowed:
 * the platform may add some, and the body is stored as received anyway.
 */

const Id = Type.String({ minLength: 1 });
const Text = Type.String();
const UserIds = Type.Array(Type.String({ minLength: 1 }));
/** Epoch milliseconds. */
const Millis = Type.Number({ minimum: 0, maximum: 8.64e15 });
/** ISO 8601 with a zone: `2024-03-01T08:00:00Z`, also with fractions or an offset (normalised to UTC). */
const IsoTime = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})$' });
const opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

const common = <K extends string>(kind: K) => ({ kind: Type.Literal(kind), fileId: Id, userId: Id });

// 6.1 Comment
export const CommentCreate = Type.Object({
  ...common('comment'),
  type: opt(Type.Literal('comment')),
  action: Type.Literal('create'),
  comment: Type.Object({
    guid: Id,
    content: Text,
    userIds: opt(UserIds),
    selectionGuid: opt(Text),
    selectionContent: opt(Text),
    selectionTitle: opt(Text),
    replyTo: opt(Text),
    replyComment: opt(
      Type.Object({ userId: opt(Text), commentGuid: opt(Text), selectionTitle: opt(Text), selectionGuid: opt(Text) }),
    ),
  }),
});
export const CommentUpdate = Type.Object({
  ...common('comment'),
  type: opt(Type.Literal('comment')),
  action: Type.Literal('update'),
  comment: Type.Object({ guid: Id, content: Text, selectionGuid: opt(Text), userIds: opt(UserIds) }),
});
export const CommentDelete = Type.Object({
  ...common('comment'),
  type: opt(Type.Literal('comment')),
  action: Type.Literal('delete'),
  deleteComment: Type.Object({ guid: Id, selectionGuid: opt(Text) }),
});
export const CommentClose = Type.Object({
  ...common('comment'),
  type: opt(Type.Literal('comment')),
  action: Type.Literal('closeComments'),
  closeComment: Type.Object({ selectionGuid: Text }),
});

// 6.2 Discussion (lightweight documents only)
export const DiscussionCreate = Type.Object({
  ...common('discussion'),
  type: opt(Type.Literal('discussion')),
  action: Type.Literal('create'),
  discussion: Type.Object({ id: Id, unixus: opt(Type.Number()), content: Text, positionId: opt(Text) }),
});

// 6.3 MentionAt: three variants by `type`
export const MentionInComment = Type.Object({
  ...common('mention_at'),
  type: Type.Literal('comment'),
  action: Type.Literal('create'),
  comment: Type.Object({
    guid: Id,
    selectionGuid: opt(Text),
    content: Text,
    userIds: UserIds,
    selectionContent: opt(Text),
    selectionTitle: opt(Text),
  }),
});
export const MentionInDiscussion = Type.Object({
  ...common('mention_at'),
  type: Type.Literal('discussion'),
  action: Type.Literal('create'),
  discussion: Type.Object({ id: Id, unixus: opt(Type.Number()), content: Text, userIds: UserIds }),
});
export const MentionInContent = Type.Object({
  ...common('mention_at'),
  type: Type.Literal('mention_at'),
  action: Type.Literal('create'),
  // `content` is absent for traditional documents and application tables.
  mentionAt: Type.Object({ guid: Id, userId: Id, content: opt(Text) }),
});

// 6.4 DateMention
const dateMention = { ...common('mention'), type: Type.Literal('date_mention') };
export const DateMentionCreate = Type.Object({
  ...dateMention,
  action: Type.Literal('create'),
  createData: Type.Object({
    id: Id,
    fileId: opt(Id),
    authorId: opt(Id),
    content: Text,
    remindUserIds: opt(UserIds),
    remindAt: IsoTime,
    positionId: opt(Text),
  }),
});
export const DateMentionUpdate = Type.Object({
  ...dateMention,
  action: Type.Literal('update'),
  updateData: Type.Object({ id: Id, content: opt(Text), remindUserIds: opt(UserIds), remindAt: opt(IsoTime), positionId: opt(Text) }),
});
export const DateMentionRemove = Type.Object({
  ...dateMention,
  action: Type.Literal('remove'),
  removeData: Type.Object({ id: Id }),
});

// 6.5 FileContent
export const FileContentUpdate = Type.Object({
  ...common('fileContent'),
  type: opt(Type.Literal('fileContent')),
  action: Type.Literal('update'),
  fileContent: Type.Object({ version: Type.Integer({ minimum: 0 }), timestamp: Millis }),
});

// 6.6 Collaborator
const collaboratorChanged = Type.Object({ clientId: Id, timestamp: Millis });
export const CollaboratorEnter = Type.Object({ ...common('collaborator'), action: Type.Literal('enter'), collaboratorChanged });
export const CollaboratorLeave = Type.Object({ ...common('collaborator'), action: Type.Literal('leave'), collaboratorChanged });

// 6.7 Revision: `timestamp` is read inside `revision` or beside it.
const revisionBody = <A extends string>(action: A) =>
  Type.Object({
    ...common('revision'),
    action: Type.Literal(action),
    timestamp: opt(Millis),
    revision: Type.Object({
      revisionId: Type.Integer(),
      title: opt(Text),
      label: opt(Text),
      docHistoryId: opt(Text),
      timestamp: opt(Millis),
    }),
  });
export const RevisionCreate = revisionBody('create');
export const RevisionUpdate = revisionBody('update');
export const RevisionDelete = revisionBody('delete');

// 6.8 System (experimental: every part optional, but typed where present)
export const SystemEndpointCallback = Type.Object({
  kind: Type.Literal('System'),
  type: Type.Literal('endpointCallback'),
  appId: opt(Text),
  timestamp: opt(Millis),
  request: opt(Type.Object({ headers: opt(Type.Record(Type.String(), Type.Unknown())), url: opt(Text), body: opt(Text) })),
  response: opt(Type.Object({ headers: opt(Type.Record(Type.String(), Type.Unknown())), status: opt(Type.Integer()), body: opt(Text) })),
  errorMessage: opt(Text),
});

/** Every known (kind, variant) with its schema; the variant is the action, MentionAt's `type`, System's `type`. */
export const EVENT_SCHEMAS = {
  Comment: { create: CommentCreate, update: CommentUpdate, delete: CommentDelete, closeComments: CommentClose },
  Discussion: { create: DiscussionCreate },
  MentionAt: { comment: MentionInComment, discussion: MentionInDiscussion, mention_at: MentionInContent },
  DateMention: { create: DateMentionCreate, update: DateMentionUpdate, remove: DateMentionRemove },
  FileContent: { update: FileContentUpdate },
  Collaborator: { enter: CollaboratorEnter, leave: CollaboratorLeave },
  Revision: { create: RevisionCreate, update: RevisionUpdate, delete: RevisionDelete },
  System: { endpointCallback: SystemEndpointCallback },
} as const satisfies Record<EventKind, Record<string, TSchema>>;

type Schemas = typeof EVENT_SCHEMAS;

/** A validated event of a known kind and variant, typed by its schema. */
export type KnownEvent = {
  [K in keyof Schemas]: { [V in keyof Schemas[K]]: { kind: K; variant: V; body: Schemas[K][V] extends TSchema ? Static<Schemas[K][V]> : never } }[keyof Schemas[K]];
}[keyof Schemas];

/** Which part of the body selects the schema within a kind. */
export function variantOf(kind: EventKind, body: Record<string, unknown>): unknown {
  if (kind === 'System') return body.type;
  if (kind === 'MentionAt') return body.action === 'create' ? body.type : body.action;
  return body.action;
}

const validators = new Map(
  Object.entries(EVENT_SCHEMAS).flatMap(([kind, variants]) =>
    Object.entries(variants).map(([variant, schema]) => [`${kind}/${variant}`, Compile(schema as TSchema)] as const),
  ),
);

export type Classified =
  | { outcome: 'known'; event: KnownEvent }
  /** A kind or variant this version does not know: stored and acknowledged, not acted on. */
  | { outcome: 'unknown' }
  | { outcome: 'invalid'; message: string };

/** Checks a body of a known kind against the schema of its variant. */
export function classifyEvent(kind: EventKind, body: Record<string, unknown>): Classified {
  const variant = variantOf(kind, body);
  if (typeof variant !== 'string') return { outcome: 'unknown' };
  const validator = validators.get(`${kind}/${variant}`);
  if (!validator) return { outcome: 'unknown' };
  if (validator.Check(body)) {
    const problem = semanticProblem(kind, body);
    if (problem) return { outcome: 'invalid', message: `${kind} ${variant}: ${problem}` };
    return { outcome: 'known', event: { kind, variant, body } as KnownEvent };
  }
  const [first] = validator.Errors(body);
  const where = first?.instancePath ? `body${first.instancePath.replaceAll('/', '.')}` : 'body';
  return { outcome: 'invalid', message: `${kind} ${variant}: ${where} ${first?.message ?? 'is not valid'}` };
}

/** What a schema cannot say: a reminder time must be a real instant. */
function semanticProblem(kind: EventKind, body: Record<string, unknown>): string | undefined {
  if (kind !== 'DateMention') return undefined;
  const data = (body.createData ?? body.updateData) as { remindAt?: string } | undefined;
  if (data?.remindAt !== undefined && Number.isNaN(Date.parse(data.remindAt))) return 'body.remindAt is not a real time';
  return undefined;
}
