import type { FastifyReply, FastifyRequest } from 'fastify';
import { userTokenCheck } from '../auth/user-auth.js';
import type { User } from '../directory/types.js';
import { refusalError } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The user of a user-context callback, set by the user-token check. */
    viewer: User;
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
  };
}
