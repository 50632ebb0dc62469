import { eventBody, eventCredential, type EventKind, type EventSubject } from './event-bodies.js';
import { productionEventBody } from './production-bodies.js';
import { brandHeaders } from './headers.js';
import { callHttp, type HttpAnswer } from './http-client.js';
import { isRecord, platformSignature, type AppCredentials } from './jwt.js';

export interface PushOptions {
  /** The callback server's base URL; the event goes to `{to}/events`. */
  to: string;
  kind: EventKind;
  action: string;
  subject: EventSubject;
  /** The user token (token events, and System without credentials). */
  token?: string;
  /** The application's credentials (FileContent, Collaborator, and System when given). */
  credentials?: AppCredentials;
  brand?: string;
  timeoutMs?: number;
  /** A body to send instead of the generated one. */
  body?: unknown;
  /**
   * `document` (default): the bodies of interface part 6; `production`: as the production platform sends
   * them (production-bodies.ts), where `action` names the variant.
   */
  shape?: 'document' | 'production';
  /**
   * The conformance check sending the event, written into the body as `conformanceCheck` so an operator can
   * tell the kit's pushes from the platform's in the event log (a body the platform sends has no such field).
   */
  sentByCheck?: string;
}

/** The body as the kit sends it: marked with the check's id (see `PushOptions.sentByCheck`). */
export function markedByCheck<B extends Record<string, unknown>>(body: B, checkId: string): B & { conformanceCheck: string } {
  return { ...body, conformanceCheck: checkId };
}

export class PushError extends Error {
  override name = 'PushError';
}

/** The headers the platform sends with an event of this kind (part 6): the kind, then a token or a signature. */
export function eventHeaders(options: Omit<PushOptions, 'to' | 'action'>): Record<string, string> {
  const names = brandHeaders(options.brand);
  const headers: Record<string, string> = { [names.sdkEvent]: options.kind };
  const credential = eventCredential(options.kind);
  const { token, credentials } = options;
  if (credential === 'signature' || (credential === 'either' && credentials)) {
    if (!credentials) throw new PushError(`${options.kind} events are signed: give --app-id and --app-secret`);
    headers[names.credentialType] = '3';
    headers[names.signature] = platformSignature(credentials, { fileId: options.subject.fileId });
    headers[names.appId] = credentials.appId;
    return headers;
  }
  if (token === undefined) throw new PushError(`${options.kind} events carry the user token: give --token`);
  headers[names.credentialType] = '0';
  headers[names.token] = token;
  if (credentials) headers[names.appId] = credentials.appId;
  return headers;
}

/** Pushes one event as the platform does: `POST {to}/events` with the kind's header and credential. */
export function pushEvent(options: PushOptions): Promise<HttpAnswer> {
  const subject = { appId: options.credentials?.appId, ...options.subject };
  const generated = () => (options.shape === 'production' ? productionEventBody(options.kind, options.action, subject) : eventBody(options.kind, options.action, subject));
  const unmarked = options.body ?? generated();
  const body = options.sentByCheck !== undefined && isRecord(unmarked) ? markedByCheck(unmarked, options.sentByCheck) : unmarked;
  return callHttp(options.to, '/events', { method: 'POST', headers: eventHeaders(options), body }, options.timeoutMs);
}
