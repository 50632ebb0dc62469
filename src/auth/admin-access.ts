import { CSRF_HEADER, type ConsoleSessions } from './console-sessions.js';
import type { AuthRefusal } from './refusal.js';
import { sameSecret } from './secret-compare.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a management request presents: read from the request by the HTTP layer. */
export interface AdminCredentials {
  method: string;
  /** The Authorization header, when sent. */
  authorization: string | undefined;
  /** The console session cookie's value, when sent (and console sessions are on). */
  sessionToken: string | undefined;
  /** The X-CSRF-Token header, when sent. */
  csrfToken: string | undefined;
}

/**
 * The access rule of the management API: `Authorization: Bearer ADMIN_API_KEY`, compared in constant
 * time; or, when `consoleSessions` is given and no Authorization header is sent, a signed-in operator
 * console session (its HttpOnly cookie), which must also send its CSRF token in `X-CSRF-Token` on every
 * request that is not GET, HEAD or OPTIONS. Without a configured key the API is off and says so
 * (404 `admin_api_disabled`). Returns the refusal, or undefined when the request may go on.
 */
export function adminAccessCheck(adminApiKey: string | undefined, consoleSessions?: ConsoleSessions) {
  return async function checkAdminAccess(presented: AdminCredentials): Promise<AuthRefusal | undefined> {
    if (adminApiKey === undefined) {
      return { status: 404, code: 'admin_api_disabled', message: 'the management API is off: set ADMIN_API_KEY to turn it on' };
    }
    const header = presented.authorization;
    if (header === undefined && consoleSessions !== undefined && presented.sessionToken !== undefined) {
      return consoleSessionRefusal(presented, consoleSessions, presented.sessionToken);
    }
    const match = typeof header === 'string' ? /^Bearer\s+(.+)$/i.exec(header) : null;
    if (!match) return unauthorized('the management API needs Authorization: Bearer <ADMIN_API_KEY>', 'admin_key_missing');
    if (!sameSecret(match[1] as string, adminApiKey)) return unauthorized('the admin API key is not valid', 'admin_key_invalid');
    return undefined;
  };
}

async function consoleSessionRefusal(presented: AdminCredentials, sessions: ConsoleSessions, token: string): Promise<AuthRefusal | undefined> {
  const session = await sessions.verify(token);
  if (!session) return unauthorized('the console session has expired or was signed out: sign in again', 'console_session_invalid');
  if (SAFE_METHODS.has(presented.method)) return undefined;
  if (!sessions.csrfMatches(token, presented.csrfToken)) {
    return { status: 403, code: 'csrf_token_invalid', message: `a console write needs the session's CSRF token in ${CSRF_HEADER}` };
  }
  return undefined;
}

function unauthorized(message: string, code: string): AuthRefusal {
  return { status: 401, code, message };
}
