import type { Permissions } from '../directory/types.js';
import { KIND_RULES, type Permission } from './event-kinds.js';
import type { ReadEvent } from './event-reader.js';
import type { TrustCache } from './trust-cache.js';

/** How the event was authenticated; stored with it. */
export type EventCredential = 'token' | 'token-expired' | 'signature' | 'unsigned';

export interface Authenticated {
  credential: EventCredential;
  /** The token's user, on token events. */
  tokenUserId?: string;
  /** The user a platform signature was made for, when it names one (its `userId` claim). */
  signedUserId?: string;
  /** On a guest's token (docs/sharing.md): the share link it was issued through. */
  guestLinkId?: string;
}

/** What the trust rules need to know beyond the event (lookups in the directory and the log). */
export interface TrustLookups {
  /** Users' states and their permissions on files, kept while the directory does not change. */
  trust: TrustCache;
  /** The files holding reminder `id` (its reminder row, or accepted events about it). */
  reminderFiles(reminderId: string): Promise<string[]>;
  /** Who created the revision on the file, when known (`key`: its id, or `history:…`/`title:…` without one). */
  revisionAuthor(fileId: string, key: string): Promise<string | undefined>;
  /**
   * A guest's permissions on the file, read live: null unless the guest's link is still active and is the
   * file's. Absent: guests' events are refused.
   */
  guestPermissions?(guestId: string, linkId: string, fileId: string): Promise<Permissions | null>;
}

/** Who acts, on which file, about what: the columns the log keeps beside the body. */
export interface Resolved {
  fileId: string | null;
  actorId: string | null;
  subject: string | null;
}

export type Decision = ({ accepted: true } | { accepted: false; code: string; message: string }) & Resolved;

const VERBS: Record<Permission, string> = {
  readable: 'read',
  commentable: 'comment on',
  editable: 'edit',
  copyable: 'copy',
  exportable: 'export',
  manageable: 'manage',
};

/**
 * The trust rules of POST /events. On a token event the actor is the token's user: an actor field of the
 * body that names anyone else is refused (`actor_mismatch`), an absent one is taken from the token, and
 * the actor must hold the kind's permission on the file (`permission_denied`; updating or deleting
 * another user's revision needs `manageable`). A DateMention that names only its reminder is resolved
 * to the reminder's file, among the files the actor may edit. A signed event carries the platform's word
 * for the actor, unless its signature was made for one user: then that user is the actor, and a body
 * naming anyone else is refused (`actor_mismatch`) like a token event's. Refusals derive nothing; the caller keeps them in the log as `refused`.
 */
export async function decide(read: ReadEvent, auth: Authenticated, lookups: TrustLookups): Promise<Decision> {
  const subject = read.subject ?? null;
  if (auth.tokenUserId === undefined && auth.signedUserId !== undefined) {
    const other = read.actors.find((actor) => actorId(actor.value) !== auth.signedUserId);
    const fileId = read.fileId ?? (await onlyReminderFile(read, lookups)) ?? null;
    if (other) {
      return refuse('actor_mismatch', `${other.path} ${describe(other.value)} is not the user the signature was made for ("${auth.signedUserId}")`, {
        fileId,
        actorId: actorId(other.value) ?? null,
        subject,
      });
    }
    return { accepted: true, fileId, actorId: auth.signedUserId, subject };
  }
  if (auth.tokenUserId === undefined) {
    const claimed = read.actors.map((actor) => actorId(actor.value)).find((id) => id !== undefined) ?? null;
    return { accepted: true, fileId: read.fileId ?? (await onlyReminderFile(read, lookups)) ?? null, actorId: claimed, subject };
  }
  const actorIdOfToken = auth.tokenUserId;
  const other = read.actors.find((actor) => actorId(actor.value) !== actorIdOfToken);
  if (other) {
    return refuse('actor_mismatch', `${other.path} ${describe(other.value)} is not the user of the token ("${actorIdOfToken}")`, {
      fileId: read.fileId ?? null,
      actorId: actorId(other.value) ?? null,
      subject,
    });
  }
  const permission = read.kind === undefined ? undefined : KIND_RULES[read.kind].permission;
  const resolved: Resolved = { fileId: read.fileId ?? null, actorId: actorIdOfToken, subject };
  if (permission === undefined) return { accepted: true, ...resolved };
  if (auth.guestLinkId !== undefined) return decideForGuest(read, auth.guestLinkId, permission, resolved, lookups);

  await lookups.trust.follow();
  const state = await lookups.trust.userState(actorIdOfToken);
  if (state !== 'active') {
    return refuse('permission_denied', `the user of the token ("${actorIdOfToken}") is ${state === 'deactivated' ? 'deactivated' : 'not in the directory'}`, resolved);
  }
  if (resolved.fileId === null) {
    if (read.meaning?.type !== 'reminder' || read.subject === undefined) return { accepted: true, ...resolved }; // unprocessed later: no file
    return resolveReminderFile(read.meaning.id, actorIdOfToken, resolved, lookups);
  }
  const permissions = await lookups.trust.permissionsOn(resolved.fileId, actorIdOfToken);
  return withinPermissions(read, permission, permissions, { ...resolved, fileId: resolved.fileId }, lookups);
}

/**
 * A guest's event (docs/sharing.md): only about the link's file, only within the link's role, and only
 * while the link is active. A guest's event naming no file (a reminder by id alone) is refused.
 */
async function decideForGuest(read: ReadEvent, linkId: string, permission: Permission, resolved: Resolved, lookups: TrustLookups): Promise<Decision> {
  const guestId = resolved.actorId!;
  if (resolved.fileId === null) return refuse('permission_denied', 'a guest may act only on the file of their share link', resolved);
  const permissions = (await lookups.guestPermissions?.(guestId, linkId, resolved.fileId)) ?? null;
  if (permissions === null) return refuse('permission_denied', 'a guest may act only on the file of their share link, while the link is active', resolved);
  return withinPermissions(read, permission, permissions, { ...resolved, fileId: resolved.fileId }, lookups);
}

async function withinPermissions(
  read: ReadEvent,
  permission: Permission,
  permissions: Permissions | null,
  resolved: Resolved & { fileId: string },
  lookups: TrustLookups,
): Promise<Decision> {
  if (!permissions?.[permission]) return refuse('permission_denied', `the user of the token may not ${VERBS[permission]} this file`, resolved);
  if (read.meaning?.type === 'revision' && read.meaning.op !== 'create' && !permissions.manageable) {
    const author = await lookups.revisionAuthor(resolved.fileId, read.meaning.key);
    if (author !== undefined && author !== resolved.actorId) {
      return refuse('permission_denied', `revision ${read.meaning.key} was made by another user: changing it needs manageable`, resolved);
    }
  }
  return { accepted: true, ...resolved };
}

/** Refusals that stand: re-processing never turns them into accepted events. */
const FINAL_REFUSALS: readonly string[] = ['actor_mismatch', 'permission_denied'];

/** What the log keeps of an event that re-processing needs. */
export interface LoggedTrust {
  outcome: string;
  problem: string | null;
  credential: string;
  senderId: string | null;
  userId: string | null;
}

export type Recheck = { accepted: true; fileId: string | null; actorId: string | null } | { accepted: false; problem: string };

/**
 * Whether re-processing may derive an event's effects, and with which actor. An event accepted when it
 * arrived keeps its actor (on a token event, the token's user). A refused one: an `actor_mismatch` or a
 * `permission_denied` stands (the body named someone else, or the sender lacked the right when it acted:
 * no operator's click makes that the sender's act); any other refusal (the directory failed) is decided
 * again with the user who really sent it; a token event whose sender was not recorded stays refused.
 */
export async function recheckForReprocessing(event: LoggedTrust, read: ReadEvent, lookups: TrustLookups): Promise<Recheck> {
  const tokenEvent = event.credential === 'token' || event.credential === 'token-expired';
  if (event.outcome !== 'refused') return { accepted: true, fileId: null, actorId: tokenEvent ? (event.senderId ?? event.userId) : event.userId };
  const problem = event.problem ?? 'refused';
  if (FINAL_REFUSALS.includes(problem.split(':', 1)[0]!)) return { accepted: false, problem };
  if (tokenEvent && event.senderId === null) return { accepted: false, problem };
  const credential = event.credential as EventCredential;
  const auth: Authenticated = tokenEvent ? { credential, tokenUserId: event.senderId! } : event.senderId !== null ? { credential, signedUserId: event.senderId } : { credential };
  const decision = await decide(read, auth, lookups).catch((error: unknown): Decision =>
    refuse('trust_unchecked', `the directory failed: ${(error instanceof Error ? error.message : String(error)).slice(0, 200)}`, { fileId: null, actorId: null, subject: null }),
  );
  if (!decision.accepted) return { accepted: false, problem: `${decision.code}: ${decision.message}` };
  return { accepted: true, fileId: decision.fileId, actorId: decision.actorId };
}

/**
 * A reminder named only by its id: its file is the one file holding it that the actor may edit. Held only
 * by files the actor may not edit, the event is refused (no event takes over another file's reminder);
 * unknown, or on several files the actor edits, it is accepted without a file (and left unprocessed).
 */
async function resolveReminderFile(reminderId: string, actorId: string, resolved: Resolved, lookups: TrustLookups): Promise<Decision> {
  const files = await lookups.reminderFiles(reminderId);
  if (files.length === 0) return { accepted: true, ...resolved };
  const editable: string[] = [];
  for (const fileId of files) {
    if ((await lookups.trust.permissionsOn(fileId, actorId))?.editable) editable.push(fileId);
  }
  if (editable.length === 0) return refuse('permission_denied', 'the user of the token may not edit the file of this reminder', resolved);
  return { accepted: true, ...resolved, fileId: editable.length === 1 ? editable[0]! : null };
}

/** A signed DateMention that names only its reminder: the reminder's file when there is exactly one. */
async function onlyReminderFile(read: ReadEvent, lookups: TrustLookups): Promise<string | undefined> {
  if (read.meaning?.type !== 'reminder') return undefined;
  const files = await lookups.reminderFiles(read.meaning.id);
  return files.length === 1 ? files[0] : undefined;
}

/** The id an actor field names: text, or a whole number written out. */
function actorId(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function describe(value: unknown): string {
  const id = actorId(value);
  return id === undefined ? 'is not a user id' : `"${id.length > 64 ? `${id.slice(0, 64)}…` : id}"`;
}

function refuse(code: string, message: string, resolved: Resolved): Decision {
  return { accepted: false, code, message, ...resolved };
}
