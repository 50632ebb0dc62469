import type { FileRecord, Permissions, Role } from './types.js';
import { ROLES } from './types.js';

export const NO_PERMISSIONS: Readonly<Permissions> = Object.freeze({
  readable: false,
  commentable: false,
  editable: false,
  copyable: false,
  exportable: false,
  manageable: false,
});

/** What a share link lets its guests do (issue 24, docs/sharing.md). */
export const LINK_ROLES = ['view', 'comment', 'edit', 'form_fill'] as const;
export type LinkRole = (typeof LINK_ROLES)[number];

/** The directory role a link's guests act with: never manager (a guest never manages a file). */
export const LINK_ROLE_TO_ROLE: Readonly<Record<LinkRole, Role>> = { view: 'viewer', comment: 'commenter', edit: 'editor', form_fill: 'viewer' };

/**
 * A guest's permissions on their link's file: those of the link's role (restrictions applied), never
 * `manageable`; a `view` guest only reads (no copy, no export), as does a `form_fill` one.
 */
export function guestPermissionsFor(role: LinkRole, restrictions: FileRecord['restrictions']): Permissions {
  const permissions = permissionsFor(LINK_ROLE_TO_ROLE[role], restrictions);
  if (role === 'view' || role === 'form_fill') return { ...NO_PERMISSIONS, readable: true };
  return { ...permissions, manageable: false };
}

export function roleRank(role: Role): number {
  return ROLES.indexOf(role) + 1;
}

export function roleFromRank(rank: number): Role | null {
  return ROLES[rank - 1] ?? null;
}

/** The strongest of the roles granted to a user, the creator always being manager. */
export function effectiveRole(file: Pick<FileRecord, 'creatorId'>, userId: string, grantedRanks: readonly number[]): Role | null {
  if (file.creatorId === userId) return 'manager';
  let best = 0;
  for (const rank of grantedRanks) if (rank > best) best = rank;
  return roleFromRank(best);
}

/**
 * The permission model of contracts.md: roles give flags, each role including the one before;
 * `restrictions.copy: false` removes `copyable` unless `editable`; `restrictions.export: false`
 * removes `exportable` for everyone but managers; `editable` always implies `copyable`.
 */
export function permissionsFor(role: Role | null, restrictions: FileRecord['restrictions']): Permissions {
  if (role === null) return { ...NO_PERMISSIONS };
  const rank = roleRank(role);
  const editable = rank >= roleRank('editor');
  const manageable = rank >= roleRank('manager');
  return {
    readable: true,
    commentable: rank >= roleRank('commenter'),
    editable,
    copyable: editable || restrictions.copy,
    exportable: manageable || restrictions.export,
    manageable,
  };
}
