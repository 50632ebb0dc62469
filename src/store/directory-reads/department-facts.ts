import { sql } from 'kysely';
import type { DepartmentPathNode } from '../../directory/types.js';
import type { DepartmentRow } from './directory-caches.js';
import type { ReadContext } from './read-context.js';

/**
 * Facts about departments that the store's department reads need, each cached until
 * the next write to the people area: the rows, the ancestors, and member counts, which for a first-level
 * department of a large company mean counting tens of thousands of memberships. Callers have refreshed
 * the caches for their request.
 */

const ID_CHUNK = 500;

async function inChunks<T>(ids: readonly string[], read: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
  const rows: T[] = [];
  for (let start = 0; start < ids.length; start += ID_CHUNK) rows.push(...(await read(ids.slice(start, start + ID_CHUNK))));
  return rows;
}

/** The departments among `ids` that exist, by id. */
export async function departmentRows(context: ReadContext, ids: readonly string[]): Promise<Map<string, DepartmentRow>> {
  const found = await context.caches.departments.throughMany(
    ids,
    async (missing) => {
      const rows = await inChunks(missing, (chunk) =>
        context.db.selectFrom('departments').select(['id', 'name', 'team_id', 'parent_id', 'name_pinyin', 'name_initials']).where('id', 'in', chunk).execute(),
      );
      return new Map(rows.map((row) => [row.id, row]));
    },
    null,
  );
  const rows = new Map<string, DepartmentRow>();
  for (const [id, row] of found) if (row) rows.set(id, row);
  return rows;
}

/** The ancestors of each department, from the first level down, itself left out. */
export async function departmentPaths(context: ReadContext, ids: readonly string[]): Promise<Map<string, readonly DepartmentPathNode[]>> {
  return context.caches.departmentPaths.throughMany(
    ids,
    async (missing) => {
      const rows = await inChunks(missing, (chunk) =>
        context.db
          .selectFrom('department_ancestors as a')
          .innerJoin('departments as d', 'd.id', 'a.ancestor_id')
          .select(['a.department_id', 'd.id', 'd.name'])
          .where('a.department_id', 'in', chunk)
          .where('a.depth', '>', 0)
          .orderBy('a.department_id')
          .orderBy('a.depth', 'desc')
          .execute(),
      );
      const paths = new Map<string, DepartmentPathNode[]>();
      for (const row of rows) {
        const path = paths.get(row.department_id) ?? [];
        path.push({ id: row.id, name: row.name });
        paths.set(row.department_id, path);
      }
      return paths;
    },
    [],
  );
}

/** Distinct active members of each department's subtree. */
export async function subtreeMemberCounts(context: ReadContext, ids: readonly string[]): Promise<Map<string, number>> {
  const counts = await context.caches.memberCounts.throughMany(
    ids.map((id) => `department:${id}`),
    async (missing) => {
      const rows = await inChunks(
        missing.map((key) => key.slice('department:'.length)),
        (chunk) =>
          context.db
            .selectFrom('department_ancestors as a')
            .innerJoin('user_departments as ud', 'ud.department_id', 'a.department_id')
            .innerJoin('users as u', 'u.id', 'ud.user_id')
            .select(['a.ancestor_id', (eb) => eb.fn.count<number>('ud.user_id').distinct().as('count')])
            .where('a.ancestor_id', 'in', chunk)
            .where('u.active', '=', 1)
            .groupBy('a.ancestor_id')
            .execute(),
      );
      return new Map(rows.map((row) => [`department:${row.ancestor_id}`, Number(row.count)]));
    },
    0,
  );
  return new Map(ids.map((id) => [id, counts.get(`department:${id}`) ?? 0]));
}

/** Active members of the team. */
export async function teamMemberCount(context: ReadContext, teamId: string): Promise<number> {
  return context.caches.memberCounts.through(`team:${teamId}`, async () => {
    const row = await sql<{ count: number }>`SELECT COUNT(*) AS count FROM users WHERE team_id = ${teamId} AND active = 1`.execute(context.db);
    return Number(row.rows[0]?.count ?? 0);
  });
}

/** The department's direct active members, by name then id. */
export async function directMemberIds(context: ReadContext, departmentId: string): Promise<readonly string[]> {
  return context.caches.directMembers.through(
    departmentId,
    async () => {
      const rows = await context.db
        .selectFrom('user_departments as ud')
        .innerJoin('users as u', 'u.id', 'ud.user_id')
        .select('u.id')
        .where('ud.department_id', '=', departmentId)
        .where('u.active', '=', 1)
        .orderBy('u.name')
        .orderBy('u.id')
        .execute();
      return rows.map((row) => row.id);
    },
    (ids) => Math.max(1, ids.length),
  );
}
