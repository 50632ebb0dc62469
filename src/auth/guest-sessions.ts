import type { RateLimit } from '../config/server-limits.js';
import { formatTime } from '../directory/time.js';
import { FailedAuthLimiter } from './failed-auth-limit.js';
import { epochSeconds } from './jwt.js';
import { linkPasswordMatches } from './link-password.js';
import { linkCodeHash, linkState, newGuestId, type Guest, type ShareLink, type ShareLinkStore } from './share-links.js';
import { mintGuestToken } from './user-token.js';

/** Refused token requests allowed per link and per address before both are refused unchecked: 10 in 15 minutes. */
export const GUEST_FAILURE_LIMIT: RateLimit = { max: 10, windowMs: 15 * 60_000 };

/** A guest's display name when they give none; names are trimmed and cut to this many characters. */
export const DEFAULT_GUEST_NAME = 'Guest';
export const MAX_GUEST_NAME = 64;

export interface GuestTokenRequest {
  code: string;
  name?: string | undefined;
  password?: string | undefined;
  /** The caller's address, for the per-address limit. */
  client: string;
}

export type GuestTokenRefusal = {
  ok: false;
  status: 403 | 404 | 429;
  code: 'link_not_found' | 'link_revoked' | 'link_expired' | 'link_used_up' | 'password_required' | 'password_wrong' | 'too_many_attempts';
  message: string;
  link?: ShareLink;
  retryAfterMs?: number;
};
export type GuestTokenOutcome = { ok: true; token: string; guest: Guest; link: ShareLink; expiresAt: number } | GuestTokenRefusal;

/**
 * `POST /share-links/{code}/token`: checks the link (state, password, uses left) and makes a guest with a
 * token bound to the link's file, expiring at the link's end at the latest. Refusals are counted per link
 * and per address; past GUEST_FAILURE_LIMIT either one is refused before the password is even checked.
 */
export class GuestSessions {
  private readonly byLink: FailedAuthLimiter;
  private readonly byClient: FailedAuthLimiter;

  constructor(
    private readonly links: ShareLinkStore,
    private readonly options: { tokenSecret: string; tokenTtlSeconds: number; failureLimit?: RateLimit; now?: () => number },
  ) {
    const limit = options.failureLimit ?? GUEST_FAILURE_LIMIT;
    this.byLink = new FailedAuthLimiter(limit, options.now);
    this.byClient = new FailedAuthLimiter(limit, options.now);
  }

  async issue(request: GuestTokenRequest): Promise<GuestTokenOutcome> {
    const nowMs = (this.options.now ?? Date.now)();
    const clientWait = this.byClient.blockedForMs(request.client);
    if (clientWait > 0) return tooMany(clientWait);
    const found = await this.links.findByCode(linkCodeHash(request.code));
    if (!found) return this.refuse(request, undefined, 404, 'link_not_found', 'no share link with this code');
    const { link, passwordHash } = found;
    const linkWait = this.byLink.blockedForMs(link.id);
    if (linkWait > 0) return { ...tooMany(linkWait), link };
    const state = linkState(link, formatTime(nowMs));
    if (state === 'revoked') return this.refuse(request, link, 403, 'link_revoked', 'this share link was revoked');
    if (state === 'expired') return this.refuse(request, link, 403, 'link_expired', 'this share link has expired');
    if (passwordHash !== null) {
      if (request.password === undefined || request.password === '') return this.refuse(request, link, 403, 'password_required', 'this share link needs a password');
      if (!(await linkPasswordMatches(request.password, passwordHash))) return this.refuse(request, link, 403, 'password_wrong', 'the password is not right');
    }
    if (!(await this.links.claimUse(link.id))) return this.refuse(request, link, 403, 'link_used_up', 'this share link has been used as often as it may');
    const at = formatTime(nowMs);
    const guest: Guest = { id: newGuestId(), linkId: link.id, name: guestName(request.name), createdAt: at, lastUsedAt: at };
    await this.links.insertGuest(guest);
    const ttlEnd = epochSeconds(nowMs) + this.options.tokenTtlSeconds;
    const expiresAt = link.expiresAt === null ? ttlEnd : Math.min(ttlEnd, epochSeconds(Date.parse(link.expiresAt)));
    const token = mintGuestToken(guest.id, link.id, this.options.tokenSecret, expiresAt, nowMs);
    return { ok: true, token, guest, link: { ...link, uses: link.uses + 1 }, expiresAt };
  }

  private refuse(request: GuestTokenRequest, link: ShareLink | undefined, status: 403 | 404, code: GuestTokenRefusal['code'], message: string): GuestTokenRefusal {
    this.byClient.recordFailure(request.client);
    if (link) this.byLink.recordFailure(link.id);
    return link ? { ok: false, status, code, message, link } : { ok: false, status, code, message };
  }
}

function tooMany(waitMs: number): GuestTokenRefusal {
  return { ok: false, status: 429, code: 'too_many_attempts', message: 'too many refused attempts; try again later', retryAfterMs: waitMs };
}

/** The guest's display name: trimmed, control characters removed, at most MAX_GUEST_NAME characters. */
export function guestName(name: string | undefined): string {
  // eslint-disable-next-line no-control-regex
  const clean = (name ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return clean === '' ? DEFAULT_GUEST_NAME : [...clean].slice(0, MAX_GUEST_NAME).join('');
}
