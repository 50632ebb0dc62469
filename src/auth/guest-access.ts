import type { Directory } from '../directory/directory.js';
import { formatTime } from '../directory/time.js';
import type { User } from '../directory/types.js';
import type { AuthRefusal } from './refusal.js';
import { linkState, type Guest, type LinkRole, type ShareLink, type ShareLinkStore } from './share-links.js';

/** A guest as the callbacks see them: the one file and role their link gives. */
export interface GuestPrincipal {
  id: string;
  name: string;
  linkId: string;
  fileId: string;
  role: LinkRole;
  ownerId: string;
  ownerName: string;
  /** The platform's anonymous reader (token `pseudonymoustoken`): no file of their own; reads files whose link allows it. */
  anonymous?: true;
}

/** The token the platform sends for an anonymous viewer (platform-api.md §6.11). */
export const ANONYMOUS_TOKEN = 'pseudonymoustoken';
/** The pseudonymous user an anonymous reader is answered as. */
export const ANONYMOUS_USER: User = Object.freeze({ id: 'anonymous', name: 'Anonymous', email: null, avatar: null, teamId: null, watermark: ['Anonymous'] });

export type GuestCheck = { ok: true; user: User; guest: GuestPrincipal } | { ok: false; refusal: AuthRefusal };

/** A guest's `last_used_at` is written at most once per this many milliseconds (per instance). */
const TOUCH_EVERY_MS = 60_000;
const TOUCHED_REMEMBERED = 10_000;

/**
 * Turns a guest token's subject and link into the guest, reading guest and link from the store on every
 * request: a revoked or expired link refuses its guests' tokens at once, on every instance (no cache to
 * go stale). The guest is never a directory user; `user` is the shape the callbacks answer with: no team,
 * no email, a watermark naming the guest and the link's owner.
 */
export class GuestAccess {
  private readonly touched = new Map<string, number>();

  constructor(
    private readonly links: ShareLinkStore,
    private readonly directory: Directory,
    private readonly now: () => number = Date.now,
  ) {}

  /** The anonymous reader: read-only, and only on files with an active link that has `anonymous` on. */
  anonymous(): GuestCheck {
    const { id, name } = ANONYMOUS_USER;
    return { ok: true, user: ANONYMOUS_USER, guest: { id, name, linkId: '', fileId: '', role: 'view', ownerId: '', ownerName: '', anonymous: true } };
  }

  /** Whether any file lets the anonymous reader in now: otherwise their token is refused as unknown. */
  anonymousWelcome(): Promise<boolean> {
    return this.links.anonymousAllowed(null, formatTime(this.now()));
  }

  /** Whether the anonymous reader may read the file now (read afresh: a revoked link ends it at once). */
  anonymousMayRead(fileId: string): Promise<boolean> {
    return this.links.anonymousAllowed(fileId, formatTime(this.now()));
  }

  async check(guestId: string, linkId: string): Promise<GuestCheck> {
    const found = await activeGuestLink(this.links, guestId, linkId, formatTime(this.now()));
    if (!found.ok) return { ok: false, refusal: found.refusal };
    const { guest, link } = found;
    const owner = await this.directory.getUser(link.ownerId);
    const ownerName = owner?.name ?? link.ownerId;
    this.touch(guest.id);
    const user: User = { id: guest.id, name: guest.name, email: null, avatar: null, teamId: null, watermark: [guest.name, `shared by ${ownerName}`] };
    return { ok: true, user, guest: { id: guest.id, name: guest.name, linkId: link.id, fileId: link.fileId, role: link.role, ownerId: link.ownerId, ownerName } };
  }

  /** Records the guest's last use, at most once a minute per guest on this instance (never fails a request). */
  private touch(guestId: string): void {
    const nowMs = this.now();
    const last = this.touched.get(guestId);
    if (last !== undefined && nowMs - last < TOUCH_EVERY_MS) return;
    this.touched.delete(guestId);
    if (this.touched.size >= TOUCHED_REMEMBERED) this.touched.delete(this.touched.keys().next().value as string);
    this.touched.set(guestId, nowMs);
    this.links.touchGuest(guestId, formatTime(nowMs)).catch(() => {});
  }
}

/**
 * The guest and their link, read afresh from the store, if the token's link is the guest's and is still
 * active (not revoked, not expired); else why not (401). Used by the callbacks and the event intake.
 */
export async function activeGuestLink(
  links: ShareLinkStore,
  guestId: string,
  linkId: string,
  nowText: string,
): Promise<{ ok: true; guest: Guest; link: ShareLink } | { ok: false; refusal: AuthRefusal }> {
  const found = await links.guestWithLink(guestId);
  if (!found || found.link.id !== linkId) return refuse('the guest of this token is unknown', 'token_guest_unknown');
  const state = linkState(found.link, nowText);
  if (state === 'revoked') return refuse('the share link of this guest token was revoked', 'token_link_revoked');
  if (state === 'expired') return refuse('the share link of this guest token has expired', 'token_link_expired');
  return { ok: true, ...found };
}

function refuse(message: string, code: string): { ok: false; refusal: AuthRefusal } {
  return { ok: false, refusal: { status: 401, code, message } };
}
