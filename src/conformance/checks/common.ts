import type { CheckContext } from '../check.js';
import type { SeenFile } from '../discovery.js';
import { isRecord } from '../jwt.js';
import { query, seg } from '../probe.js';
import { DEPARTMENT, DEPARTMENT_MEMBERS, arrayOf } from '../shapes.js';

/** Up to `limit` collaborative documents seen by discovery, the one under test first. */
export function collaborativeFiles(c: CheckContext, limit: number): SeenFile[] {
  const files = c.found.files.filter((f) => f.type !== 'file');
  const primary = files.find((f) => f.id === c.found.fileId);
  const ordered = primary ? [primary, ...files.filter((f) => f !== primary)] : files;
  return ordered.slice(0, limit);
}

/** A page size that splits `total` items into about three pages. */
export function pageSizeFor(total: number): number {
  return Math.max(1, Math.ceil(total / 3));
}

export const rootId = (teamId: string): string => `TEAM_${teamId}`;

export interface DepartmentNode {
  id: string;
  name: string;
  allMemberCount: number;
  /** The parent department, null for a first-level one. */
  parentId: string | null;
  childIds: string[];
  /** Whether its children were read (the walk's limit may stop before). */
  explored: boolean;
}

/** Walks the tree from `TEAM_{teamId}/children` down, breadth first, at most `limit` departments. */
export async function walkDepartments(c: CheckContext, teamId: string, limit = 40): Promise<Map<string, DepartmentNode>> {
  const nodes = new Map<string, DepartmentNode>();
  const queue: Array<string | null> = [null];
  while (queue.length > 0 && nodes.size < limit) {
    const parentId = queue.shift() as string | null;
    const path = `/departments/${seg(parentId ?? rootId(teamId))}/children`;
    const body = c.ok(await c.probe.read(path));
    if (body === undefined || !c.shape(arrayOf(DEPARTMENT), body, `children of ${parentId ?? rootId(teamId)}`)) continue;
    if (parentId !== null) (nodes.get(parentId) as DepartmentNode).explored = true;
    for (const child of body as Array<{ id: string; name: string; allMemberCount: number }>) {
      if (nodes.has(child.id)) {
        c.fail(`department ${child.id} appears twice in the tree (under ${parentId ?? rootId(teamId)} and ${nodes.get(child.id)?.parentId ?? rootId(teamId)})`);
        continue;
      }
      if (nodes.size >= limit) break;
      nodes.set(child.id, { id: child.id, name: child.name, allMemberCount: child.allMemberCount, parentId, childIds: [], explored: false });
      if (parentId !== null) nodes.get(parentId)?.childIds.push(child.id);
      queue.push(child.id);
    }
  }
  return nodes;
}

/**
 * Every member of a department, whatever the server's page base: pages 0 to the last are read and joined
 * (a server paging from 1 answers page 0 as page 1 or refuses it; both are fine here). undefined when the
 * department is too big to list cheaply or its members cannot be read.
 */
export async function allDepartmentMembers(c: CheckContext, departmentId: string): Promise<{ total: number; ids: Set<string> } | undefined> {
  const pageSize = 100;
  const path = (page: number) => `/departments/${seg(departmentId)}/members${query({ page, pageSize })}`;
  const first = await c.probe.read(path(1));
  const body = c.ok(first);
  if (body === undefined || !c.shape(DEPARTMENT_MEMBERS, body, `members of ${departmentId}`)) return undefined;
  const total = (body as { total: number }).total;
  if (total > 1000) return undefined;
  const ids = new Set<string>();
  for (let page = 0; page <= Math.ceil(total / pageSize) + 1; page++) {
    const answer = await c.probe.read(path(page));
    if (answer.status !== 200 || !isRecord(answer.body) || !Array.isArray(answer.body.members)) continue;
    for (const member of answer.body.members) if (isRecord(member) && typeof member.id === 'string') ids.add(member.id);
  }
  return { total, ids };
}
