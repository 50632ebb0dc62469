import type { Directory } from '../directory/directory.js';
import type { User } from '../directory/types.js';
import { ANONYMOUS_TOKEN, type GuestAccess, type GuestPrincipal } from './guest-access.js';
import type { AuthRefusal } from './refusal.js';
import type { TokenResolver } from './token-resolver.js';

/** The outcome of a user-token check: the user, or why not (always a 401). */
export type UserTokenCheck = { ok: true; user: User; guest?: GuestPrincipal } | { ok: false; refusal: AuthRefusal };

const REFUSALS = {
  malformed: 'the user token is malformed',
  forged: 'the user token is not valid',
  expired: 'the user token has expired',
  not_yet_valid: 'the user token is not valid yet (its nbf is in the future)',
} as const;

/**
 * The check of user-context callbacks (credential type 0): the token header's value (undefined when not
 * sent) must be a valid, unexpired token of a user who still exists and is active.
 */
export function userTokenCheck(options: { tokenHeader: string; resolveToken: TokenResolver; directory: Directory; guests?: GuestAccess }) {
  const { tokenHeader, resolveToken, directory, guests } = options;
  return async function checkUserToken(token: string | undefined): Promise<UserTokenCheck> {
    if (token === undefined || token === '') return refuse(`a user token is required in ${headerDisplay(tokenHeader)}`, 'token_missing');
    // The platform's anonymous viewer: only while some file allows anonymous reading (docs/sharing.md);
    // otherwise the token is refused as any unknown token is.
    if (guests && token === ANONYMOUS_TOKEN && (await guests.anonymousWelcome())) return guests.anonymous();
    const resolved = resolveToken(token);
    // A remembered token comes back as is: awaited only when it is a promise (one microtask less per request).
    const result = resolved instanceof Promise ? await resolved : resolved;
    if (!result.ok) return refuse(REFUSALS[result.reason], `token_${result.reason}`);
    // A guest's token (issued through a share link) names no directory user: the link decides (guest-access.ts).
    if (result.linkId !== undefined) return guests ? guests.check(result.userId, result.linkId) : refuse('guest tokens are not accepted here', 'token_guest_unknown');
    const user = await directory.getUser(result.userId);
    if (!user) return refuse('the user of this token no longer exists', 'token_user_unknown');
    if (user.active === false) return refuse('the user of this token is deactivated', 'token_user_inactive');
    return { ok: true, user };
  };
}

function refuse(message: string, code: string): UserTokenCheck {
  return { ok: false, refusal: { status: 401, code, message } };
}

function headerDisplay(lowerCaseName: string): string {
  return lowerCaseName.replace(/(^|-)([a-z])/g, (_m, dash: string, letter: string) => dash + letter.toUpperCase());
}
