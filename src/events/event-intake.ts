import { createHash } from 'node:crypto';
import type { NewEvent } from '../store/events/event-log.js';
import type { EventAppender } from './event-appender.js';
import { authenticateEvent, type CredentialRules } from './event-credentials.js';
import { cleanText, isFields } from './event-fields.js';
import { contradicts, KIND_RULES, kindOfBody, knownKind, UNKNOWN_KIND_RULE, type EventKind } from './event-kinds.js';
import { readEvent, type ReadEvent } from './event-reader.js';
import type { EventCounters } from './event-stats.js';
import { decide, type Decision, type TrustLookups } from './event-trust.js';

/** A push as the HTTP layer received it. */
export interface IntakeRequest {
  /** The `X-{brand}-Sdk-Event` header, when present. */
  headerKind: string | undefined;
  /** The body exactly as received (stored so), and parsed. */
  rawBody: string;
  body: unknown;
  /** The token and signature headers, when present. */
  token: string | undefined;
  signature: string | undefined;
}

/** 200: acknowledged (stored). Otherwise the refusal, as the caller answers it. */
export type IntakeAnswer = { status: 200 } | { status: 400 | 401 | 403 | 503; code: string; message: string };

export interface IntakeDeps {
  credentials: CredentialRules;
  lookups: TrustLookups;
  appender: EventAppender;
  counters: EventCounters;
  /** The event header as the platform spells it, for messages. */
  eventHeader: string;
  now?: () => number;
}

/** Kinds and actions are kept in their columns to this length (the body keeps them whole). */
const MAX_NAME_LENGTH = 64;

/**
 * POST /events, free of HTTP. Every push that is JSON and authentic is stored as received and
 * acknowledged; what the body means is worked out later, from the log (event-processor.ts). Refused:
 * a header kind that the body's `kind` contradicts (400), a missing or wrong credential (401), and, on a
 * token event, an actor that is not the token's user or lacks the permission the event needs (403, the
 * event kept aside as `refused`, see event-trust.ts). A duplicate delivery is acknowledged once more.
 */
export class EventIntake {
  private readonly now: () => number;

  constructor(private readonly deps: IntakeDeps) {
    this.now = deps.now ?? Date.now;
  }

  async receive(request: IntakeRequest): Promise<IntakeAnswer> {
    const receivedMs = this.now();
    const bodyKind = isFields(request.body) ? request.body.kind : undefined;
    const header = request.headerKind?.trim() ?? '';
    const kind: EventKind | undefined = header === '' ? (typeof bodyKind === 'string' ? kindOfBody(bodyKind) : undefined) : knownKind(header);
    const storedKind = kind ?? name(header || (typeof bodyKind === 'string' ? bodyKind : '') || 'Unknown');
    if (header !== '' && contradicts(kind, bodyKind)) {
      this.deps.counters.countIntake(storedKind, 'malformed');
      return {
        status: 400,
        code: 'event_kind_mismatch',
        message: `${this.deps.eventHeader} is ${JSON.stringify(name(header))} but the body's kind is ${JSON.stringify(name(String(bodyKind)))}`,
      };
    }

    const read = readEvent(storedKind, request.body);
    // The platform signed the file id as it sent it (the reader's copy is made storable).
    const signedFileId = isFields(request.body) && typeof request.body.fileId === 'string' ? request.body.fileId : read.fileId;
    const auth = await authenticateEvent(
      { policy: (kind ? KIND_RULES[kind] : UNKNOWN_KIND_RULE).credential, token: request.token, signature: request.signature, fileId: signedFileId },
      this.deps.credentials,
    );
    if (!auth.ok) {
      this.deps.counters.countIntake(storedKind, 'unauthenticated');
      return { status: 401, code: auth.code, message: auth.message };
    }

    const decision = await decide(read, auth, this.deps.lookups).catch((error: unknown) => unchecked(read, auth.tokenUserId, error));
    const refusal = decision.accepted ? undefined : decision;
    const event: NewEvent = {
      // A refused event's key names its sender, so that a forged copy cannot pass for the platform's own.
      deliveryKey: createHash('sha256')
        .update(refusal ? `refused\n${auth.tokenUserId ?? auth.signedUserId ?? ''}\n` : '')
        .update(`${storedKind}\n${request.rawBody}`)
        .digest('hex'),
      kind: storedKind,
      action: actionOf(request.body),
      fileId: decision.fileId,
      userId: decision.actorId,
      credential: auth.credential,
      senderId: auth.tokenUserId ?? auth.signedUserId ?? null,
      outcome: refusal ? 'refused' : 'pending',
      problem: refusal ? `${refusal.code}: ${refusal.message}` : null,
      subject: decision.subject,
      receivedMs,
      body: request.rawBody,
    };
    const id = await this.deps.appender.append(event);
    this.deps.counters.countIntake(storedKind, id === null ? 'duplicate' : refusal ? 'refused' : 'accepted');
    if (!refusal) return { status: 200 };
    if (refusal.code === UNCHECKED)
      return { status: 503, code: UNCHECKED, message: 'the directory could not be asked whether the sender may do this; the event is kept, refused, for re-processing' };
    return { status: 403, code: refusal.code, message: refusal.message };
  }
}

/** The code of an event whose trust could not be checked (the directory failed). */
const UNCHECKED = 'trust_unchecked';

/**
 * The directory (a host application's, perhaps) failed while the trust rules asked it: the event is
 * kept, refused, so that nothing is derived from it unchecked and an operator can re-process it.
 */
function unchecked(read: ReadEvent, tokenUserId: string | undefined, error: unknown): Decision {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    accepted: false,
    code: UNCHECKED,
    message: `the directory failed: ${reason.slice(0, 200)}`,
    fileId: read.fileId ?? null,
    actorId: tokenUserId ?? null,
    subject: read.subject ?? null,
  };
}

/** The action column: the body's `action`, else its `type` (System), as sent. */
function actionOf(body: unknown): string | null {
  if (!isFields(body)) return null;
  const action = typeof body.action === 'string' ? body.action : typeof body.type === 'string' ? body.type : undefined;
  return action === undefined ? null : name(action);
}

function name(text: string): string {
  return cleanText(text.length > MAX_NAME_LENGTH ? text.slice(0, MAX_NAME_LENGTH) : text);
}
