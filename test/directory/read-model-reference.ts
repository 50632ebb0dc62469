import type { Kysely } from 'kysely';
import { roleFromRank } from '../../src/directory/permissions.js';
import type { DepartmentPathNode, DepartmentSummary, Role, User } from '../../src/directory/types.js';
import { toUser } from '../../src/store/directory-reads/directory-rows.js';
import type { Database } from '../../src/store/schema/schema.js';

/**
 * What the Directory port must answer, worked out by brute force from every row of the store (no index,
 * no cache, no closure table): the reference the read model is compared with. Orders are code point
 * orders (what both stores' ORDER BY gives).
 */
export async function referenceFromRows(db: Kysely<Database>) {
  const teams = await db.selectFrom('teams').selectAll().execute();
  const departments = await db.selectFrom('departments').selectAll().execute();
  const users = (await db.selectFrom('users').selectAll().execute()).map(toUser);
  const memberships = await db.selectFrom('user_departments').selectAll().execute();
  const files = await db.selectFrom('files').selectAll().execute();
  const grants = await db.selectFrom('file_grants').selectAll().execute();
  const contents = new Set((await db.selectFrom('file_contents').select('file_id').execute()).map((row) => row.file_id));

  const cmp = (a: string, b: string) => {
    const x = Buffer.from(a, 'utf8');
    const y = Buffer.from(b, 'utf8');
    return Buffer.compare(x, y);
  };
  const byNameId = (a: { name: string; id: string }, b: { name: string; id: string }) => cmp(a.name, b.name) || cmp(a.id, b.id);
  const active = (user: User | undefined): user is User => user !== undefined && user.active !== false;
  const userById = (id: string) => users.find((user) => user.id === id);
  const department = (id: string) => departments.find((d) => d.id === id);
  /** The department, then its parents while known, a cycle stopping it (the unknown last parent included). */
  const chain = (id: string): string[] => {
    if (!department(id)) return [];
    const ids: string[] = [];
    for (let current: string | null | undefined = id; current != null && !ids.includes(current); current = department(current)?.parent_id) ids.push(current);
    return ids;
  };
  const userDepartments = (userId: string) => memberships.filter((m) => m.user_id === userId).map((m) => m.department_id);
  const principals = (userId: string) => {
    const set = new Set([`user:${userId}`]);
    const teamId = userById(userId)?.teamId;
    if (teamId != null) set.add(`team:${teamId}`);
    for (const id of userDepartments(userId)) for (const ancestor of chain(id)) set.add(`department:${ancestor}`);
    return set;
  };
  const grantedRole = (fileId: string, userId: string): Role | null => {
    const set = principals(userId);
    let best = 0;
    for (const grant of grants) if (grant.file_id === fileId && set.has(`${grant.principal_kind}:${grant.principal_id}`)) best = Math.max(best, Number(grant.role_rank));
    return roleFromRank(best);
  };
  const subtreeCount = (id: string) => new Set(memberships.filter((m) => active(userById(m.user_id)) && chain(m.department_id).includes(id)).map((m) => m.user_id)).size;
  const teamMembers = (teamId: string) => users.filter((user) => user.teamId === teamId && active(user)).sort(byNameId);
  const path = (id: string): DepartmentPathNode[] =>
    chain(id)
      .flatMap((ancestor) => {
        const found = department(ancestor);
        return found ? [{ id: found.id, name: found.name }] : [];
      })
      .reverse();

  return {
    teams,
    departments,
    users,
    files,
    getUser: (id: string) => userById(id),
    getTeam: (id: string) => teams.find((team) => team.id === id),
    countTeamMembers: (teamId: string) => teamMembers(teamId).length,
    listTeamMembers: (teamId: string) => teamMembers(teamId),
    getDepartment: (id: string) => {
      const found = department(id);
      return found && { id: found.id, name: found.name, teamId: found.team_id, parentId: found.parent_id };
    },
    countAllDepartmentMembers: subtreeCount,
    listChildDepartments: (teamId: string, parentId: string | null): DepartmentSummary[] =>
      departments
        .filter((d) => d.team_id === teamId && d.parent_id === parentId)
        .sort(byNameId)
        .map((d) => ({ id: d.id, name: d.name, allMemberCount: subtreeCount(d.id) })),
    listDepartmentMembers: (id: string) => users.filter((user) => active(user) && memberships.some((m) => m.user_id === user.id && m.department_id === id)).sort(byNameId),
    listDepartmentAncestors: (id: string) => path(id).slice(0, -1),
    listDepartmentPaths: (userId: string) =>
      userDepartments(userId)
        .sort(cmp)
        .map(path)
        .filter((p) => p.length > 0),
    getGrantedRole: grantedRole,
    hasStoredContent: (fileId: string) => contents.has(fileId),
    listDirectGrantees: (fileId: string) =>
      grants
        .filter((g) => g.file_id === fileId && g.principal_kind === 'user')
        .flatMap((g) => {
          const user = userById(g.principal_id);
          const role = roleFromRank(Number(g.role_rank));
          return active(user) && role ? [{ user, role }] : [];
        })
        .sort((a, b) => byNameId(a.user, b.user)),
  };
}
