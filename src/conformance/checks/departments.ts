import type { Check, CheckContext } from '../check.js';
import { isRecord } from '../jwt.js';
import { query, seg } from '../probe.js';
import { DEPARTMENT, DEPARTMENT_MEMBERS, PATH_NODE, TEAM, arrayOf } from '../shapes.js';
import { allDepartmentMembers, pageSizeFor, rootId, walkDepartments, type DepartmentNode } from './common.js';
import { reportPaging } from './team.js';

async function teamMemberCount(c: CheckContext): Promise<number | undefined> {
  const team = await c.probe.read('/users/current/team');
  return team.status === 200 && isRecord(team.body) && typeof team.body.memberCount === 'number' ? team.body.memberCount : undefined;
}

/** Parts 2.6, 2.7, 4.3: the department tree under `TEAM_{teamId}`, its counts, members and paths. */
export const departmentChecks: Check[] = [
  {
    id: 'departments.root',
    group: 'departments',
    section: '4.3',
    title: "GET /departments/TEAM_{teamId} answers the root: id TEAM_{teamId}, allMemberCount = the team's memberCount",
    async run(c) {
      const root = rootId(c.teamId());
      const body = c.ok(await c.probe.read(`/departments/${seg(root)}`));
      if (body === undefined || !c.shape(DEPARTMENT, body, root)) return;
      const department = body as { id: string; allMemberCount: number };
      if (department.id !== root) c.fail(`GET /departments/${root} answered id "${department.id}", not "${root}"`);
      const memberCount = await teamMemberCount(c);
      if (memberCount !== undefined && department.allMemberCount !== memberCount) {
        c.fail(`${root}: allMemberCount ${department.allMemberCount} but the team's memberCount is ${memberCount}`);
      }
    },
  },
  {
    id: 'departments.tree',
    group: 'departments',
    section: '4.3',
    title: 'TEAM_{teamId}/children lists the first level; every department answers GET /departments/{id} as its parent lists it',
    async run(c) {
      const nodes = await walkDepartments(c, c.teamId());
      if (nodes.size === 0 && c.problems.length === 0) return c.skip('the team has no departments');
      for (const node of nodes.values()) {
        if (node.id.startsWith('TEAM_')) c.fail(`department ${node.id} under ${node.parentId ?? 'the root'}: the team level appears inside the tree`);
        const body = c.ok(await c.probe.read(`/departments/${seg(node.id)}`));
        if (body === undefined || !c.shape(DEPARTMENT, body, `department ${node.id}`)) continue;
        const own = body as { id: string; name: string; allMemberCount: number };
        if (own.id !== node.id) c.fail(`GET /departments/${node.id} answered id "${own.id}"`);
        if (own.name !== node.name) c.fail(`department ${node.id}: name "${own.name}" but its parent lists "${node.name}"`);
        if (own.allMemberCount !== node.allMemberCount) {
          c.fail(`department ${node.id}: allMemberCount ${own.allMemberCount} but its parent lists ${node.allMemberCount}`);
        }
      }
    },
  },
  {
    id: 'departments.members',
    group: 'departments',
    section: '4.3',
    title: "GET /departments/{id}/members answers { total, members }; for TEAM_{teamId}, total = the team's memberCount",
    async run(c) {
      const teamId = c.teamId();
      const root = rootId(teamId);
      const body = c.ok(await c.probe.read(`/departments/${seg(root)}/members${query({ page: 1, pageSize: 20 })}`));
      if (body !== undefined && c.shape(DEPARTMENT_MEMBERS, body, `members of ${root}`)) {
        const memberCount = await teamMemberCount(c);
        const total = (body as { total: number }).total;
        if (memberCount !== undefined && total !== memberCount) c.fail(`${root}/members: total ${total} but the team's memberCount is ${memberCount}`);
      }
      const team = await c.probe.read('/users/current/team');
      if (team.status === 200) c.shape(TEAM, team.body, 'team');
      const nodes = [...(await walkDepartments(c, teamId)).values()].slice(0, 10);
      for (const node of nodes) {
        const members = c.ok(await c.probe.read(`/departments/${seg(node.id)}/members${query({ page: 1, pageSize: 20 })}`));
        if (members !== undefined) c.shape(DEPARTMENT_MEMBERS, members, `members of ${node.id}`);
      }
    },
  },
  {
    id: 'departments.all-member-count',
    group: 'departments',
    section: '2.6',
    title: 'allMemberCount = the distinct members of the department and all its descendants (by the members lists)',
    async run(c) {
      const nodes = await walkDepartments(c, c.teamId(), 30);
      if (nodes.size === 0) return c.skip('the team has no departments');
      const membersOf = new Map<string, Set<string> | undefined>();
      for (const node of nodes.values()) membersOf.set(node.id, (await allDepartmentMembers(c, node.id))?.ids);
      // undefined when some part of the subtree is unknown (too big, unreadable, or past the walk's limit).
      const subtree = (node: DepartmentNode): Set<string> | undefined => {
        const own = membersOf.get(node.id);
        if (!own || !node.explored) return undefined;
        const all = new Set(own);
        for (const childId of node.childIds) {
          const child = nodes.get(childId);
          const members = child ? subtree(child) : undefined;
          if (!members) return undefined;
          for (const id of members) all.add(id);
        }
        return all;
      };
      let compared = 0;
      for (const node of nodes.values()) {
        const members = subtree(node);
        if (!members) continue;
        compared++;
        if (members.size !== node.allMemberCount) {
          c.fail(`department ${node.id}: allMemberCount ${node.allMemberCount} but its members lists and its descendants' hold ${members.size} distinct users`);
        }
      }
      if (compared === 0) return c.skip('no department small enough to count');
    },
  },
  {
    id: 'departments.members-paging',
    group: 'departments',
    section: '4.3',
    title: 'department members paged (page from 1): pages add up to total, no duplicates, none missing',
    async run(c) {
      const teamId = c.teamId();
      const candidates = [...(await walkDepartments(c, teamId)).keys(), rootId(teamId)];
      let chosen: { id: string; total: number; ids: Set<string> } | undefined;
      for (const id of candidates) {
        const members = await allDepartmentMembers(c, id);
        if (members && members.total >= 2 && (!chosen || members.total > chosen.total)) chosen = { id, ...members };
        if (chosen && id !== rootId(teamId)) break;
      }
      if (!chosen) return c.skip('no department with two or more members');
      const pageSize = pageSizeFor(chosen.total);
      const lastPage = Math.ceil(chosen.total / pageSize);
      const seen: string[] = [];
      for (let page = 1; page <= lastPage + 1; page++) {
        const body = c.ok(await c.probe.read(`/departments/${seg(chosen.id)}/members${query({ page, pageSize })}`));
        if (body === undefined || !c.shape(DEPARTMENT_MEMBERS, body, `members of ${chosen.id}, page ${page}`)) return;
        const { total, members } = body as { total: number; members: Array<{ id: string }> };
        if (total !== chosen.total) c.fail(`members of ${chosen.id}: total ${total} on page ${page} but ${chosen.total} on page 1`);
        if (members.length > pageSize) c.fail(`members of ${chosen.id}: page ${page} holds ${members.length}, more than pageSize ${pageSize}`);
        if (page > lastPage && members.length > 0) c.fail(`members of ${chosen.id}: page ${page} is past the last page (${lastPage}) yet holds ${members.length}`);
        seen.push(...members.map((m) => m.id));
      }
      reportPaging(c, `members of ${chosen.id}`, seen, [...chosen.ids], pageSize);
      if (chosen.ids.size !== chosen.total) c.fail(`members of ${chosen.id}: total ${chosen.total} but ${chosen.ids.size} distinct members listed`);
    },
  },
  {
    id: 'departments.paths',
    group: 'departments',
    section: '2.7',
    title: "GET /users/{userId}/department-paths: paths top-down from a first-level department to one of the user's, no team level",
    async run(c) {
      const body = c.ok(await c.probe.read(`/users/${seg(c.found.userId)}/department-paths`));
      if (body === undefined || !c.shape(arrayOf(arrayOf(PATH_NODE)), body, 'department paths')) return;
      const paths = body as Array<Array<{ id: string; name: string }>>;
      if (paths.length === 0) return c.skip('the current user is in no department (an empty array is correct then)');
      const teamId = c.teamId();
      for (const [index, path] of paths.entries()) {
        const where = `path ${index} (${path.map((n) => n.id).join(' > ')})`;
        if (path.length === 0) {
          c.fail(`${where}: empty; a user without departments gets [] instead`);
          continue;
        }
        if (path.some((n) => n.id.startsWith('TEAM_'))) {
          c.fail(`${where}: includes the team level; paths start at the first-level department`);
          continue;
        }
        let parent = rootId(teamId);
        for (const node of path) {
          const children = await c.probe.read(`/departments/${seg(parent)}/children`);
          const ids = Array.isArray(children.body) ? children.body.map((d: unknown) => (isRecord(d) ? d.id : undefined)) : [];
          if (!ids.includes(node.id)) {
            c.fail(`${where}: ${node.id} is not a child of ${parent}; paths run top-down, parent before child`);
            break;
          }
          parent = node.id;
        }
        const last = path[path.length - 1] as { id: string };
        const members = await allDepartmentMembers(c, last.id);
        if (members && !members.ids.has(c.found.userId)) c.fail(`${where}: the user is not a member of ${last.id}, the path's last department`);
      }
    },
  },
];
