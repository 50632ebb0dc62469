import { formatTime } from '../directory/time.js';
import type { LinkRole } from '../directory/permissions.js';
import { hashLinkPassword } from './link-password.js';
import { linkCodeHash, newLinkCode, newLinkId, type NewShareLink, type ShareLink, type ShareLinkStore } from './share-links.js';

export interface ShareLinkInput {
  fileId: string;
  role: LinkRole;
  ownerId: string;
  expiresAt?: string | undefined;
  password?: string | undefined;
  maxUses?: number | undefined;
  anonymous?: boolean | undefined;
}

/** Makes a link: a fresh code (returned once, stored as its hash) and the password's scrypt hash. */
export async function createShareLink(store: ShareLinkStore, input: ShareLinkInput, now: number = Date.now()): Promise<{ link: ShareLink; code: string }> {
  const code = newLinkCode();
  const link: NewShareLink = {
    id: newLinkId(),
    fileId: input.fileId,
    role: input.role,
    ownerId: input.ownerId,
    anonymous: input.anonymous ?? false,
    maxUses: input.maxUses ?? null,
    createdAt: formatTime(now),
    expiresAt: input.expiresAt ?? null,
    codeHash: linkCodeHash(code),
    passwordHash: input.password === undefined ? null : await hashLinkPassword(input.password),
  };
  await store.insert(link);
  const { codeHash: _codeHash, passwordHash, ...shown } = link;
  return { link: { ...shown, hasPassword: passwordHash !== null, uses: 0, revokedAt: null }, code };
}
