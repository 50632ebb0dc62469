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
