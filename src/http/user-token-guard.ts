import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GuestPrincipal } from '../auth/guest-access.js';
import { userTokenCheck } from '../auth/user-auth.js';
import type { User } from '../directory/types.js';
import { forbidden, refusalError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The user of a user-context callback, set by the user-token check. */
    viewer: User;
    /** Set when the token is a guest's (a share link's): the one file and role it gives; null for directory users. */
    guest: GuestPrincipal | null;
  }
  interface FastifyContextConfig {
    /**
     * true: a guest (share-link token) may call this route, which then answers within the guest's one file
     * and role. Absent: guests are refused with 403 `guest_not_allowed` (fail closed; docs/sharing.md).
     */
    guests?: boolean;
  }
}

/**
 * A preHandler for user-context callbacks (credential type 0): the token header must pass
 * auth/user-auth.ts's check; anything else is a 401 with the JSON error.
 */
export function userTokenGuard(options: Parameters<typeof userTokenCheck>[0]) {
  const check = userTokenCheck(options);
  return async function requireUser(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const token = request.headers[options.tokenHeader];
    const result = await check(typeof token === 'string' ? token : undefined);
    if (!result.ok) throw refusalError(result.refusal);
    request.viewer = result.user;
    request.guest = result.guest ?? null;
    if (request.guest && request.routeOptions.config.guests !== true) throw forbidden('a guest may not use this route', 'guest_not_allowed');
  };
}
