/**
 * The event kinds of interface part 6: the `X-Platform-Sdk-Event` header value, the body's `kind` (and
 * `type` where it is fixed), and which credential the platform sends with it.
 */
export type EventKind = 'Comment' | 'Discussion' | 'MentionAt' | 'DateMention' | 'FileContent' | 'Collaborator' | 'Revision' | 'System';

/** token: `X-Platform-Token`; signature: the platform signature bound to the body's fileId; either: one of them. */
export type CredentialPolicy = 'token' | 'signature' | 'either';

export interface KindRule {
  bodyKind: string;
  /** The body's `type` when the kind fixes it (DateMention: `date_mention`). */
  bodyType?: string;
  credential: CredentialPolicy;
}

export const KIND_RULES: Record<EventKind, KindRule> = {
  Comment: { bodyKind: 'comment', credential: 'token' },
  Discussion: { bodyKind: 'discussion', credential: 'token' },
  MentionAt: { bodyKind: 'mention_at', credential: 'token' },
  DateMention: { bodyKind: 'mention', bodyType: 'date_mention', credential: 'token' },
  FileContent: { bodyKind: 'fileContent', credential: 'signature' },
  Collaborator: { bodyKind: 'collaborator', credential: 'signature' },
  Revision: { bodyKind: 'revision', credential: 'token' },
  System: { bodyKind: 'System', credential: 'either' },
};

const BY_LOWER_CASE = new Map(Object.keys(KIND_RULES).map((kind) => [kind.toLowerCase(), kind as EventKind]));

/** The known kind a header value names (matched without regard to case), or undefined for an unknown kind. */
export function knownKind(headerValue: string): EventKind | undefined {
  return BY_LOWER_CASE.get(headerValue.trim().toLowerCase());
}

/**
 * Unknown kinds are stored and acknowledged (forward compatibility) but must still carry a credential:
 * either scheme is accepted, as for System.
 */
export const UNKNOWN_KIND_RULE: Omit<KindRule, 'bodyKind'> = { credential: 'either' };
