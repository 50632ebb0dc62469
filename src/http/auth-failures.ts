import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuditCredential, AuditTrail } from '../audit/audit-trail.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limit.js';
import { HttpError } from './errors.js';

/** What the management surface's guards share: one failure counter per client, and the audit trail. */
export interface AuthFailureWatch {
  authFailures: FailedAuthLimiter;
  audit: AuditTrail;
}

/**
 * Before any credential is compared: a client past RATE_LIMIT_AUTH_FAILURES is answered 429
 * `auth_rate_limited` with Retry-After, whatever it sends (so a right guess is not even looked at).
 */
export function refuseWhileBlocked(watch: AuthFailureWatch, request: FastifyRequest, reply: FastifyReply): void {
  const waitMs = watch.authFailures.blockedForMs(request.ip);
  if (waitMs <= 0) return;
  const seconds = Math.ceil(waitMs / 1000);
  reply.header('retry-after', String(seconds));
  throw new HttpError(429, 'auth_rate_limited', `too many failed authentications from this address: retry in ${seconds} s`);
}

/** A refused credential: counted for the client and recorded in the audit log (`sign_in`, never the key). */
export function recordRefusedAuth(watch: AuthFailureWatch, request: FastifyRequest, refusal: { credential: AuditCredential; code: string }): void {
  watch.authFailures.recordFailure(request.ip);
  recordSignIn(watch, request, refusal.credential, `refused ${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`, { status: 401, code: refusal.code });
}

/** A `sign_in` audit entry: console sign-ins and sign-outs, and every refused admin credential. */
export function recordSignIn(
  watch: Pick<AuthFailureWatch, 'audit'>,
  request: FastifyRequest,
  credential: AuditCredential,
  action: string,
  details: Record<string, unknown> = {},
): void {
  watch.audit.record({ kind: 'sign_in', actorId: null, credential, fileId: null, action, permissions: null, details: { client: request.ip, ...details } });
}
