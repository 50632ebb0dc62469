import { roleFromRank, roleRank } from '../../src/directory/permissions.js';
import type { Role } from '../../src/directory/types.js';
import { DEPARTMENTS, GRANTS, USERS } from '../helpers/directory-fixture.js';

/**
 * The strongest role the fixture's grants give a user on a file, worked out from contracts.md's rules
 * straight from the fixture's records (not from the store): a grant to the user, to their team, or to
 * any of their departments or an ancestor of one. The creator rule is not applied (as in the port).
 */
export function expectedGrantedRole(fileId: string, userId: string): Role | null {
  const user = USERS.find((candidate) => candidate.id === userId);
  if (!user) return null;
  const principals = new Set([`user:${user.id}`]);
  if (user.teamId) principals.add(`team:${user.teamId}`);
  for (const departmentId of user.departmentIds) {
    for (let current: string | null = departmentId; current !== null;) {
      principals.add(`department:${current}`);
      current = DEPARTMENTS.find((department) => department.id === current)?.parentId ?? null;
    }
  }
  let best = 0;
  for (const grant of GRANTS) {
    if (grant.fileId === fileId && principals.has(`${grant.principalKind}:${grant.principalId}`)) best = Math.max(best, roleRank(grant.role));
  }
  return roleFromRank(best);
}
