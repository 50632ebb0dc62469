import type { FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie'; // request.cookies
import { HttpError, forbidden, unauthorized } from '../http/errors.js';
import { CSRF_HEADER, type ConsoleSessions } from './console-sessions.js';
import { sameSecret } from './secret-compare.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The onRequest guard of the management API: `Authorization: Bearer ADMIN_API_KEY`, compared in constant
 * time; or, when `consoleSessions` is given and no Authorization header is sent, a signed-in operator
 * console session (its HttpOnly cookie), which must also send its CSRF token in `X-CSRF-Token` on every
 * request that is not GET, HEAD or OPTIONS. Without a configured key the API is off and says so
 * (404 `admin_api_disabled`).
 */
export function adminKeyGuard(adminApiKey: string | undefined, consoleSessions?: ConsoleSessions) {
  return async function requireAdminKey(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (adminApiKey === undefined) {
      throw new HttpError(404, 'admin_api_disabled', 'the management API is off: set ADMIN_API_KEY to turn it on');
    }
    const header = request.headers.authorization;
    const sessionToken = consoleSessions === undefined ? undefined : request.cookies?.[consoleSessions.cookieName];
    if (header === undefined && consoleSessions !== undefined && sessionToken !== undefined) {
      return requireConsoleSession(request, consoleSessions, sessionToken);
    }
    const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header) : null;
    if (!match) throw unauthorized('the management API needs Authorization: Bearer <ADMIN_API_KEY>', 'admin_key_missing');
    if (!sameSecret(match[1] as string, adminApiKey)) throw unauthorized('the admin API key is not valid', 'admin_key_invalid');
  };
}

async function requireConsoleSession(request: FastifyRequest, sessions: ConsoleSessions, token: string): Promise<void> {
  const session = await sessions.verify(token);
  if (!session) throw unauthorized('the console session has expired or was signed out: sign in again', 'console_session_invalid');
  if (SAFE_METHODS.has(request.method)) return;
  const csrf = request.headers[CSRF_HEADER];
  if (!sessions.csrfMatches(token, typeof csrf === 'string' ? csrf : undefined)) {
    throw forbidden(`a console write needs the session's CSRF token in ${CSRF_HEADER}`, 'csrf_token_invalid');
  }
}
