import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { LinkRole } from '../directory/permissions.js';

export { LINK_ROLES, type LinkRole } from '../directory/permissions.js';

/** A share link as the management API shows it (never its code nor its password hash). */
export interface ShareLink {
  id: string;
  fileId: string;
  role: LinkRole;
  ownerId: string;
  anonymous: boolean;
  hasPassword: boolean;
  maxUses: number | null;
  uses: number;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/** A guest of a link: one token request. */
export interface Guest {
  id: string;
  linkId: string;
  name: string;
  createdAt: string;
  lastUsedAt: string;
}

/** The stored form of a new link. */
export interface NewShareLink extends Omit<ShareLink, 'hasPassword' | 'uses' | 'revokedAt'> {
  codeHash: string;
  passwordHash: string | null;
}

/** The store's side of share links (src/store/sharing/share-links.ts). */
export interface ShareLinkStore {
  insert(link: NewShareLink): Promise<void>;
  listForFile(fileId: string): Promise<ShareLink[]>;
  get(id: string): Promise<ShareLink | undefined>;
  /** The link with this code's hash, with its password hash. */
  findByCode(codeHash: string): Promise<{ link: ShareLink; passwordHash: string | null } | undefined>;
  /** Sets `revokedAt` unless already set; false when there is no such link. */
  revoke(id: string, at: string): Promise<boolean>;
  /** Counts one use if the link has uses left (atomically); false when it is used up. */
  claimUse(id: string): Promise<boolean>;
  insertGuest(guest: Guest): Promise<void>;
  /** The guests of the links, newest first. */
  guestsOf(linkIds: readonly string[]): Promise<Guest[]>;
  /** A guest with their link, read afresh (revocation is seen at once, on every instance). */
  guestWithLink(guestId: string): Promise<{ guest: Guest; link: ShareLink } | undefined>;
  touchGuest(guestId: string, at: string): Promise<void>;
  /**
   * Whether the anonymous viewer may read the file (any file when `fileId` is null): it has an active link
   * (not revoked, not expired at `nowText`) with `anonymous` on, or is itself marked `"anonymous": "view"`.
   */
  anonymousAllowed(fileId: string | null, nowText: string): Promise<boolean>;
}

/** A new link's code: 24 random bytes (192 bits), base64url. */
export function newLinkCode(): string {
  return randomBytes(24).toString('base64url');
}

/** How a code is looked up: its SHA-256 (a code has 192 bits, a fast hash is enough). */
export function linkCodeHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

export function newLinkId(): string {
  return `link-${randomUUID()}`;
}

/** Guest ids start with `guest-` and are never a directory user's (docs/sharing.md). */
export const GUEST_PREFIX = 'guest-';

export function newGuestId(): string {
  return `${GUEST_PREFIX}${randomUUID()}`;
}

/** Why a link gives no (more) access: each its own 403 code. */
export type LinkState = 'active' | 'revoked' | 'expired';

export function linkState(link: Pick<ShareLink, 'revokedAt' | 'expiresAt'>, nowText: string): LinkState {
  if (link.revokedAt !== null) return 'revoked';
  if (link.expiresAt !== null && link.expiresAt <= nowText) return 'expired';
  return 'active';
}
