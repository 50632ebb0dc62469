import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie'; // request.cookies
import { adminAccessCheck } from '../auth/admin-access.js';
import { CSRF_HEADER, type ConsoleSessions } from '../auth/console-sessions.js';
import { refusalError } from './errors.js';

/**
 * The onRequest guard of the management API: the request's credentials (Authorization header, console
 * session cookie, CSRF header) go through auth/admin-access.ts's rule; a refusal is answered as its error.
 */
export function adminKeyGuard(adminApiKey: string | undefined, consoleSessions?: ConsoleSessions) {
  const check = adminAccessCheck(adminApiKey, consoleSessions);
  return async function requireAdminKey(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const csrf = request.headers[CSRF_HEADER];
    const refusal = await check({
      method: request.method,
      authorization: request.headers.authorization,
      sessionToken: consoleSessions === undefined ? undefined : request.cookies?.[consoleSessions.cookieName],
      csrfToken: typeof csrf === 'string' ? csrf : undefined,
    });
    if (refusal) throw refusalError(refusal);
  };
}
