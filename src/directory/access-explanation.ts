import { effectiveRole, permissionsFor, roleRank } from './permissions.js';
import type { DepartmentPathNode, FileRecord, Permissions, PrincipalKind, Restrictions, Role } from './types.js';

/**
 * Why a user may (or may not) do each of the six things with a file: the operator's answer to "I can't
 * open the budget sheet". Computed from the facts below with exactly the rules of permissions.ts
 * (`effectiveRole`, `permissionsFor`), so the explanation's permissions are the ones the callbacks serve.
 */

/** What the explanation is computed from (src/store/directory-reads/access-facts.ts reads it from the store). */
export interface AccessFacts {
  file: Pick<FileRecord, 'id' | 'name' | 'creatorId' | 'status'> & { restrictions: Restrictions; creatorName: string | null };
  user: { id: string; name: string; teamId: string | null; active: boolean };
  /** The user's team, when they have one. */
  team: { id: string; name: string } | null;
  /** The user's own departments, each with its chain upwards: [itself, its parent, …, the first level]. */
  departments: Array<{ chain: DepartmentPathNode[] }>;
  /** Every grant on the file, with the principal's name (null when the principal no longer exists). */
  grants: Array<{ principalKind: PrincipalKind; principalId: string; principalName: string | null; role: Role }>;
}

/** Where the facts come from. */
export interface AccessFactsSource {
  /** The facts of the user and the file; a string saying which of the two is unknown. */
  accessFacts(fileId: string, userId: string): Promise<AccessFacts | 'file_not_found' | 'user_not_found'>;
}

/** One way a role reaches the user. */
export type GrantPath =
  | { kind: 'creator'; role: 'manager' }
  | { kind: 'user'; role: Role }
  | {
      kind: 'department';
      role: Role;
      /** The department the grant names. */
      department: DepartmentPathNode;
      /** From the granted department down to the user's own department (one entry when it is theirs). */
      path: DepartmentPathNode[];
    }
  | { kind: 'team'; role: Role; team: DepartmentPathNode };

export const PERMISSION_NAMES = ['readable', 'commentable', 'editable', 'copyable', 'exportable', 'manageable'] as const satisfies ReadonlyArray<keyof Permissions>;
export type PermissionName = (typeof PERMISSION_NAMES)[number];

export type Restriction = 'restrictions.copy' | 'restrictions.export';

export interface PermissionExplanation {
  permission: PermissionName;
  granted: boolean;
  /** The paths whose role gives the permission on this file, strongest first; [] when it is not granted. */
  givenBy: GrantPath[];
  /** The restriction that takes the permission away from a role that would otherwise give it. */
  removedBy: Restriction | null;
}

export interface AccessExplanation {
  fileId: string;
  fileName: string;
  userId: string;
  userName: string;
  /** The role that counts: the creator's manager, else the strongest grant reaching the user; null = none. */
  role: Role | null;
  permissions: Permissions;
  /** One per permission, in PERMISSION_NAMES order. */
  explanations: PermissionExplanation[];
  /** Every path that reaches the user, strongest first. */
  paths: GrantPath[];
  /** The file's grants that do not reach this user (so the operator sees what would). */
  otherGrants: Array<{ principal: string; principalName: string | null; role: Role }>;
  restrictions: Restrictions;
  /** Facts that matter besides the grants: a deactivated user, a file not yet active. */
  notes: string[];
}

const UNRESTRICTED: Restrictions = { copy: true, export: true };

/** The explanation of the facts: the same role and permissions as `permissionsFor(effectiveRole(…))`. */
export function explainAccess(facts: AccessFacts): AccessExplanation {
  const { file, user } = facts;
  const paths: GrantPath[] = [];
  const otherGrants: AccessExplanation['otherGrants'] = [];
  if (file.creatorId === user.id) paths.push({ kind: 'creator', role: 'manager' });
  for (const grant of facts.grants) {
    const reached = pathsOf(grant, facts);
    if (reached.length > 0) paths.push(...reached);
    else otherGrants.push({ principal: `${grant.principalKind}:${grant.principalId}`, principalName: grant.principalName, role: grant.role });
  }
  paths.sort((a, b) => roleRank(b.role) - roleRank(a.role));

  const grantedRanks = paths.filter((path) => path.kind !== 'creator').map((path) => roleRank(path.role));
  const role = effectiveRole(file, user.id, grantedRanks);
  const permissions = permissionsFor(role, file.restrictions);
  const explanations = PERMISSION_NAMES.map((permission): PermissionExplanation => {
    const givenBy = paths.filter((path) => permissionsFor(path.role, file.restrictions)[permission]);
    const wouldGive = paths.some((path) => permissionsFor(path.role, UNRESTRICTED)[permission]);
    const removedBy = !permissions[permission] && wouldGive ? restrictionRemoving(permission) : null;
    return { permission, granted: permissions[permission], givenBy: permissions[permission] ? givenBy : [], removedBy };
  });
  return {
    fileId: file.id,
    fileName: file.name,
    userId: user.id,
    userName: user.name,
    role,
    permissions,
    explanations,
    paths,
    otherGrants,
    restrictions: file.restrictions,
    notes: notesOf(facts),
  };
}

/** How one grant reaches the user: none, or one path (several for a department reached through several of theirs). */
function pathsOf(grant: AccessFacts['grants'][number], facts: AccessFacts): GrantPath[] {
  const { role, principalId } = grant;
  switch (grant.principalKind) {
    case 'user':
      return principalId === facts.user.id ? [{ kind: 'user', role }] : [];
    case 'team':
      return facts.team !== null && principalId === facts.team.id ? [{ kind: 'team', role, team: facts.team }] : [];
    case 'department':
      return facts.departments.flatMap(({ chain }) => {
        const at = chain.findIndex((node) => node.id === principalId);
        if (at < 0) return [];
        const path = chain.slice(0, at + 1).reverse();
        return [{ kind: 'department' as const, role, department: path[0] as DepartmentPathNode, path }];
      });
  }
}

function restrictionRemoving(permission: PermissionName): Restriction | null {
  if (permission === 'copyable') return 'restrictions.copy';
  if (permission === 'exportable') return 'restrictions.export';
  return null;
}

function notesOf(facts: AccessFacts): string[] {
  const notes: string[] = [];
  if (!facts.user.active) notes.push('the user is deactivated: their tokens are refused, so they cannot open the file whatever the grants say');
  if (facts.file.status !== 'active') {
    notes.push(`the file is ${facts.file.status}: its creation on the platform has not succeeded, so no one is served it yet`);
  }
  return notes;
}
