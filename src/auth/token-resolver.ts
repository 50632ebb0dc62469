import { verifyUserToken, type UserTokenResult } from './user-token.js';

/**
 * Turns the token of `X-Platform-Token` into a user id. The default reads collab-host's own tokens; a host
 * application that issues its own may pass a resolver to `buildApp`.
 */
export type TokenResolver = (token: string) => UserTokenResult | Promise<UserTokenResult>;

export function defaultTokenResolver(secret: string): TokenResolver {
  return (token) => verifyUserToken(token, secret);
}
