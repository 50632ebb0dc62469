import type { PrincipalKey, ViewerScope } from './cached-shapes.js';
import type { PreparedReads } from '../statements/prepared-reads.js';
import type { ReadContext } from './read-context.js';
import { Statement } from '../statements/statement.js';

const USER = new Statement('SELECT team_id, active FROM users WHERE id = $1');
const DEPARTMENTS = new Statement(`
  SELECT ud.department_id AS own, a.ancestor_id AS ancestor
    FROM user_departments ud JOIN department_ancestors a ON a.department_id = ud.department_id
   WHERE ud.user_id = $1`);

export async function loadViewerScope(reads: PreparedReads, userId: string): Promise<ViewerScope> {
  const [user] = await reads.rows<{ team_id: string | null; active: number }>(USER, [userId]);
  const rows = await reads.rows<{ own: string; ancestor: string }>(DEPARTMENTS, [userId]);
  const departmentIds = [...new Set(rows.map((row) => row.own))];
  const departmentTree = [...new Set(rows.map((row) => row.ancestor))];
  const teamId = user?.team_id ?? null;
  const principals: PrincipalKey[] = [`user:${userId}`];
  if (teamId !== null) principals.push(`team:${teamId}`);
  for (const id of departmentTree) principals.push(`department:${id}`);
  return {
    userId,
    exists: user !== undefined,
    active: user !== undefined && Number(user.active) !== 0,
    teamId,
    departmentIds,
    departmentTree,
    principals,
  };
}

/** The user's scope from the caches (the caller has refreshed them for its request). */
export function cachedViewerScope(context: ReadContext, userId: string): Promise<ViewerScope> {
  return context.caches.viewers.through(userId, () => loadViewerScope(context.reads, userId));
}

/** The kind and id of a principal key. */
export function splitPrincipal(key: PrincipalKey): { kind: string; id: string } {
  const colon = key.indexOf(':');
  return { kind: key.slice(0, colon), id: key.slice(colon + 1) };
}
