import type { CorePermissions } from '../directory/types.js';

/**
 * The event kinds of interface part 6: the `X-Platform-Sdk-Event` header value, the body's `kind`, which
 * credential the platform sends with it, and the permission (interface 2.1) its actor needs on the file.
 */
export type EventKind = 'Comment' | 'Discussion' | 'MentionAt' | 'DateMention' | 'FileContent' | 'Collaborator' | 'Revision' | 'System';

/**
 * token: `X-Platform-Token`; signature: the platform signature bound to the body's fileId (a token instead
 * is held to the token rules); either: one of them.
 */
export type CredentialPolicy = 'token' | 'signature' | 'either';

export type Permission = keyof CorePermissions;

export interface KindRule {
  /** The body's `kind` values that fit the header, compared by `kindName` (case, `_` and `-` ignored). */
  bodyKinds: readonly string[];
  credential: CredentialPolicy;
  /** What a token's user must be allowed on the file for this kind; none for System. */
  permission: Permission | undefined;
}

export const KIND_RULES: Record<EventKind, KindRule> = {
  Comment: { bodyKinds: ['comment'], credential: 'token', permission: 'commentable' },
  Discussion: { bodyKinds: ['discussion'], credential: 'token', permission: 'commentable' },
  MentionAt: { bodyKinds: ['mentionat'], credential: 'token', permission: 'commentable' },
  DateMention: { bodyKinds: ['mention', 'datemention'], credential: 'token', permission: 'editable' },
  FileContent: { bodyKinds: ['filecontent'], credential: 'signature', permission: 'editable' },
  Collaborator: { bodyKinds: ['collaborator'], credential: 'signature', permission: 'readable' },
  Revision: { bodyKinds: ['revision'], credential: 'token', permission: 'editable' },
  System: { bodyKinds: ['system'], credential: 'either', permission: undefined },
};

/** Unknown kinds are stored and acknowledged (forward compatibility) with either credential. */
export const UNKNOWN_KIND_RULE: KindRule = { bodyKinds: [], credential: 'either', permission: undefined };

/** A kind name compared loosely: `mention_at`, `MentionAt` and `mention-at` are one name. */
export function kindName(value: string): string {
  return value.toLowerCase().replace(/[\s_-]/g, '');
}

const BY_NAME = new Map(Object.keys(KIND_RULES).map((kind) => [kindName(kind), kind as EventKind]));
const BY_BODY_KIND = new Map(Object.entries(KIND_RULES).flatMap(([kind, rule]) => rule.bodyKinds.map((name) => [name, kind as EventKind])));

/** The known kind a header value names, or undefined for an unknown kind. */
export function knownKind(headerValue: string): EventKind | undefined {
  return BY_NAME.get(kindName(headerValue));
}

/** The known kind whose body `kind` this is, or undefined. */
export function kindOfBody(bodyKind: string): EventKind | undefined {
  return BY_BODY_KIND.get(kindName(bodyKind));
}

/**
 * Whether the body's `kind` contradicts the header: it names another known kind, or a known header's
 * body carries a `kind` that is not its own. A body without a `kind` contradicts nothing.
 */
export function contradicts(headerKind: EventKind | undefined, bodyKind: unknown): boolean {
  if (typeof bodyKind !== 'string' || bodyKind.trim() === '') return false;
  if (headerKind === undefined) return kindOfBody(bodyKind) !== undefined;
  return !KIND_RULES[headerKind].bodyKinds.includes(kindName(bodyKind));
}
