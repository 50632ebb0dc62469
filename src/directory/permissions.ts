import type { CorePermissions, FileRecord, FinePermissionKey, Permissions, Role } from './types.js';
import { switchedOffKeys } from './restrictions.js';
import { ROLES } from './types.js';

export const NO_PERMISSIONS: Readonly<Permissions> = Object.freeze({
  readable: false,
  commentable: false,
  editable: false,
  copyable: false,
  exportable: false,
  manageable: false,
  lockable: false,
  unlockable: false,
  formFillable: false,
  copyablePasteClipboard: false,
  attachmentCopyable: false,
  cutable: false,
  attachmentPreviewable: false,
  attachmentDownloadable: false,
  imageDownloadable: false,
});

/**
 * The kit's nine keys (platform-api.md §6.8), each from one of the six (docs/sharing.md "Permission keys"):
 * the restrictions act through that key (`restrictions.copy: false` turns off the copy keys of those who
 * may not edit, `restrictions.export: false` the download keys of all but managers).
 *
 *   lockable, unlockable                          manageable
 *   formFillable                                  commentable (and a `form_fill` guest)
 *   copyablePasteClipboard, attachmentCopyable    copyable
 *   cutable                                       editable (and copyable)
 *   attachmentPreviewable                         readable
 *   attachmentDownloadable, imageDownloadable     exportable
 *
 * Besides, a file's restrictions may switch any of the nine off (`restrictions.cutable: false`, …): that key
 * is then false for everyone on the file, managers and guests included (capped).
 */
export const FINE_PERMISSION_SOURCES: Readonly<Record<FinePermissionKey, keyof CorePermissions>> = Object.freeze({
  lockable: 'manageable',
  unlockable: 'manageable',
  formFillable: 'commentable',
  copyablePasteClipboard: 'copyable',
  attachmentCopyable: 'copyable',
  cutable: 'editable',
  attachmentPreviewable: 'readable',
  attachmentDownloadable: 'exportable',
  imageDownloadable: 'exportable',
});

/**
 * The core permissions with the kit's keys derived from them by FINE_PERMISSION_SOURCES (`cutable` also
 * needs `copyable`), in that order. One object literal over the table: every document open and search
 * result computes permissions, and a spread followed by nine keyed stores cost ~15 µs a call (V8 left the
 * object slow).
 */
function withFineKeys(core: CorePermissions): Permissions {
  const from = FINE_PERMISSION_SOURCES;
  return {
    readable: core.readable,
    commentable: core.commentable,
    editable: core.editable,
    copyable: core.copyable,
    exportable: core.exportable,
    manageable: core.manageable,
    lockable: core[from.lockable],
    unlockable: core[from.unlockable],
    formFillable: core[from.formFillable],
    copyablePasteClipboard: core[from.copyablePasteClipboard],
    attachmentCopyable: core[from.attachmentCopyable],
    cutable: core[from.cutable] && core.copyable,
    attachmentPreviewable: core[from.attachmentPreviewable],
    attachmentDownloadable: core[from.attachmentDownloadable],
    imageDownloadable: core[from.imageDownloadable],
  };
}

/** The permissions with each key the file's restrictions switch off set to false. */
function capped(permissions: Permissions, restrictions: FileRecord['restrictions']): Permissions {
  const keys = switchedOffKeys(restrictions);
  if (keys.length === 0) return permissions;
  const result = { ...permissions };
  for (const key of keys) result[key] = false;
  return result;
}

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
  if (role === 'view') return capped(withFineKeys({ ...NO_PERMISSIONS, readable: true }), restrictions);
  if (role === 'form_fill') return capped({ ...withFineKeys({ ...NO_PERMISSIONS, readable: true }), formFillable: true }, restrictions);
  const permissions = permissionsFor(LINK_ROLE_TO_ROLE[role], restrictions);
  return capped(withFineKeys({ ...permissions, manageable: false }), restrictions);
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
 * removes `exportable` for everyone but managers; `editable` always implies `copyable`; a kit key the
 * restrictions switch off is false whatever the role.
 */
export function permissionsFor(role: Role | null, restrictions: FileRecord['restrictions']): Permissions {
  if (role === null) return { ...NO_PERMISSIONS };
  const rank = roleRank(role);
  const editable = rank >= roleRank('editor');
  const manageable = rank >= roleRank('manager');
  const core = {
    readable: true,
    commentable: rank >= roleRank('commenter'),
    editable,
    copyable: editable || restrictions.copy,
    exportable: manageable || restrictions.export,
    manageable,
  };
  return capped(withFineKeys(core), restrictions);
}
