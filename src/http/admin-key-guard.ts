import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie'; // request.cookies
import { adminAccessCheck } from '../auth/admin-access.js';
import { CSRF_HEADER, type ConsoleSessions } from '../auth/console-sessions.js';
import { recordRefusedAuth, refuseWhileBlocked, type AuthFailureWatch } from './auth-failures.js';
import { refusalError } from './errors.js';

/**
 * The onRequest guard of the management API: a client past its failed authentications is refused first
 * (http/auth-failures.ts); then the request's credentials (Authorization header, console session cookie,
 * CSRF header) go through auth/admin-access.ts's rule; a refusal for a wrong or missing credential is
 * counted and audited, and every refusal is answered as its error.
 */
export function adminKeyGuard(adminApiKey: string | undefined, consoleSessions: ConsoleSessions | undefined, watch: AuthFailureWatch) {
  const check = adminAccessCheck(adminApiKey, consoleSessions);
  return async function requireAdminKey(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    refuseWhileBlocked(watch, request, reply);
    const csrf = request.headers[CSRF_HEADER];
    const refusal = await check({
      method: request.method,
      authorization: request.headers.authorization,
      sessionToken: consoleSessions === undefined ? undefined : request.cookies?.[consoleSessions.cookieName],
      csrfToken: typeof csrf === 'string' ? csrf : undefined,
    });
    if (refusal?.status === 401)
      recordRefusedAuth(watch, request, { credential: request.headers.authorization === undefined ? 'console_session' : 'admin_key', code: refusal.code });
    if (refusal) throw refusalError(refusal);
  };
}
