import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Directory } from '../directory/directory.js';
import type { User } from '../directory/types.js';
import { unauthorized } from '../http/errors.js';
import type { TokenResolver } from './token-resolver.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The user of a user-context callback, set by the user-token check. */
    viewer: User;
  }
}

const REFUSALS = {
  malformed: 'the user token is malformed',
  forged: 'the user token is not valid',
  expired: 'the user token has expired',
} as const;

/**
 * A preHandler for user-context callbacks (credential type 0): the token header must hold a valid,
 * unexpired token of a user who still exists and is active. Anything else is a 401 with the JSON error.
 */
export function userTokenGuard(options: { tokenHeader: string; resolveToken: TokenResolver; directory: Directory }) {
  const { tokenHeader, resolveToken, directory } = options;
  return async function requireUser(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const token = request.headers[tokenHeader];
    if (typeof token !== 'string' || token === '') {
      throw unauthorized(`a user token is required in ${headerDisplay(tokenHeader)}`, 'token_missing');
    }
    const result = await resolveToken(token);
    if (!result.ok) throw unauthorized(REFUSALS[result.reason], `token_${result.reason}`);
    const user = await directory.getUser(result.userId);
    if (!user) throw unauthorized('the user of this token no longer exists', 'token_user_unknown');
    if (user.active === false) throw unauthorized('the user of this token is deactivated', 'token_user_inactive');
    request.viewer = user;
  };
}

function headerDisplay(lowerCaseName: string): string {
  return lowerCaseName.replace(/(^|-)([a-z])/g, (_m, dash: string, letter: string) => dash + letter.toUpperCase());
}
