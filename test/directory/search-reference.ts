import type { Kysely } from 'kysely';
import { roleFromRank } from '../../src/directory/permissions.js';
import { normaliseKeyword } from '../../src/directory/search-keyword.js';
import { matchTier } from '../../src/directory/search-ranking.js';
import type { Database } from '../../src/store/schema/schema.js';

/**
 * @-mention search and the readable-file lists as docs/search.md states them, by brute force over every
 * row of the store (no index, no bound): the reference the read model's search is compared with. Each
 * function answers the whole ranked list; the caller pages it.
 */
export async function searchReference(db: Kysely<Database>) {
  const teams = await db.selectFrom('teams').selectAll().execute();
  const departments = await db.selectFrom('departments').selectAll().execute();
  const users = await db.selectFrom('users').selectAll().execute();
  const memberships = await db.selectFrom('user_departments').selectAll().execute();
  const files = await db.selectFrom('files').selectAll().execute();
  const grants = await db.selectFrom('file_grants').selectAll().execute();
  const activity = await db.selectFrom('activity').selectAll().execute();
  void teams;

  const cmp = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  const newestFirst = (a: string | null | undefined, b: string | null | undefined) => (a === b ? 0 : a == null ? 1 : b == null ? -1 : a > b ? -1 : 1);
  const user = (id: string) => users.find((row) => row.id === id);
  const active = (id: string) => Number(user(id)?.active ?? 0) !== 0;
  const department = (id: string) => departments.find((row) => row.id === id);
  const chain = (id: string): string[] => {
    const ids: string[] = [];
    for (let current: string | null | undefined = department(id) ? id : null; current != null && !ids.includes(current); current = department(current)?.parent_id)
      ids.push(current);
    return ids;
  };
  const departmentsOf = (userId: string) => memberships.filter((row) => row.user_id === userId).map((row) => row.department_id);
  const grantedRank = (fileId: string, userId: string) => {
    const principals = new Set([`user:${userId}`]);
    const teamId = user(userId)?.team_id;
    if (teamId != null) principals.add(`team:${teamId}`);
    for (const id of departmentsOf(userId)) for (const ancestor of chain(id)) principals.add(`department:${ancestor}`);
    return grants.filter((g) => g.file_id === fileId && principals.has(`${g.principal_kind}:${g.principal_id}`)).reduce((best, g) => Math.max(best, Number(g.role_rank)), 0);
  };
  const latestBy = (rows: typeof activity, key: (row: (typeof activity)[number]) => string | null) => {
    const latest = new Map<string, string>();
    for (const row of rows) {
      const id = key(row);
      if (id !== null && (latest.get(id) ?? '') < row.occurred_at) latest.set(id, row.occurred_at);
    }
    return latest;
  };
  // Mentions either way: the rows of the viewer naming a related user, and the rows naming the viewer.
  const contactsOf = (viewerId: string) => {
    const latest = latestBy(
      activity.filter((row) => row.user_id === viewerId && row.related_user_id !== null),
      (row) => row.related_user_id,
    );
    for (const [id, at] of latestBy(
      activity.filter((row) => row.related_user_id === viewerId),
      (row) => row.user_id,
    ))
      if ((latest.get(id) ?? '') < at) latest.set(id, at);
    return latest;
  };
  const tierOfUser = (keyword: string, row: (typeof users)[number]) =>
    matchTier(normaliseKeyword(keyword), { name: row.name, email: row.email, pinyin: row.name_pinyin, initials: row.name_initials });
  const tierOfNamed = (keyword: string, row: { name: string; name_pinyin: string; name_initials: string }) =>
    matchTier(normaliseKeyword(keyword), { name: row.name, pinyin: row.name_pinyin, initials: row.name_initials });
  const collaboratorIds = (fileId: string) => {
    const ids = new Set<string>();
    const file = files.find((row) => row.id === fileId);
    if (file) ids.add(file.creator_id);
    for (const g of grants) if (g.file_id === fileId && g.principal_kind === 'user') ids.add(g.principal_id);
    return ids;
  };
  const rankUsers = (viewerId: string, keyword: string, ids: Iterable<string>) => {
    const contacts = contactsOf(viewerId);
    return [...ids]
      .flatMap((id) => {
        const row = user(id);
        const tier = row && active(id) ? tierOfUser(keyword, row) : null;
        return row && tier !== null ? [{ row, tier, lastAt: contacts.get(id) ?? null }] : [];
      })
      .sort((a, b) => a.tier - b.tier || newestFirst(a.lastAt, b.lastAt) || cmp(a.row.name, b.row.name) || cmp(a.row.id, b.row.id))
      .map((entry) => entry.row.id);
  };
  const activeMembersByName = (departmentId: string) =>
    users
      .filter((row) => active(row.id) && memberships.some((m) => m.user_id === row.id && m.department_id === departmentId))
      .sort((a, b) => cmp(a.name, b.name) || cmp(a.id, b.id))
      .map((row) => row.id);
  const readable = (fileId: string, userId: string) => {
    const file = files.find((row) => row.id === fileId);
    return file !== undefined && file.status === 'active' && (file.creator_id === userId || grantedRank(fileId, userId) > 0);
  };

  return {
    teamMembers: (viewerId: string, keyword: string, teamId: string) =>
      rankUsers(
        viewerId,
        keyword,
        users.filter((row) => row.team_id === teamId).map((row) => row.id),
      ),
    collaborators: (viewerId: string, keyword: string, fileId: string) => rankUsers(viewerId, keyword, collaboratorIds(fileId)),
    recentContacts: (viewerId: string, keyword: string, fileId: string | null) => {
      const related = new Map<string, { lastAt: string | null; source: number }>();
      const relate = (id: string, lastAt: string | null, source: number) => {
        if (id === viewerId) return;
        const seen = related.get(id) ?? { lastAt: null, source };
        related.set(id, { lastAt: newestFirst(lastAt, seen.lastAt) < 0 ? lastAt : seen.lastAt, source: Math.min(seen.source, source) });
      };
      for (const [id, at] of contactsOf(viewerId)) relate(id, at, 0);
      if (fileId !== null) {
        for (const [id, at] of latestBy(
          activity.filter((row) => row.file_id === fileId),
          (row) => row.user_id,
        ))
          relate(id, at, 1);
        for (const id of collaboratorIds(fileId)) relate(id, null, 2);
      }
      // The fallback: the first 50 active colleagues, departments by id, members by name then id.
      const colleagues: string[] = [];
      for (const departmentId of departmentsOf(viewerId).sort(cmp)) {
        for (const id of activeMembersByName(departmentId)) if (id !== viewerId && !colleagues.includes(id) && colleagues.length < 50) colleagues.push(id);
      }
      for (const id of colleagues) relate(id, null, 3);
      return [...related]
        .flatMap(([id, info]) => {
          const row = user(id);
          const tier = row && active(id) ? tierOfUser(keyword, row) : null;
          return row && tier !== null ? [{ row, tier, ...info }] : [];
        })
        .sort((a, b) => a.tier - b.tier || newestFirst(a.lastAt, b.lastAt) || a.source - b.source || cmp(a.row.name, b.row.name) || cmp(a.row.id, b.row.id))
        .map((entry) => entry.row.id);
    },
    departments: (viewerId: string, keyword: string, teamId: string) => {
      const mine = new Set(departmentsOf(viewerId).flatMap(chain));
      return departments
        .filter((row) => row.team_id === teamId)
        .flatMap((row) => {
          const tier = tierOfNamed(keyword, row);
          return tier === null ? [] : [{ row, tier, leads: mine.has(row.id) ? 0 : 1 }];
        })
        .sort((a, b) => a.tier - b.tier || a.leads - b.leads || cmp(a.row.name, b.row.name) || cmp(a.row.id, b.row.id))
        .map(({ row }) => ({
          id: row.id,
          name: row.name,
          allMemberCount: new Set(memberships.filter((m) => active(m.user_id) && chain(m.department_id).includes(row.id)).map((m) => m.user_id)).size,
          parentDepartments: chain(row.id)
            .slice(1)
            .reverse()
            .flatMap((id) => {
              const found = department(id);
              return found ? [{ id: found.id, name: found.name }] : [];
            }),
        }));
    },
    readableFiles: (viewerId: string, keyword: string, excludeFileId?: string) => {
      const touched = latestBy(
        activity.filter((row) => row.user_id === viewerId),
        (row) => row.file_id,
      );
      return files
        .filter((row) => row.id !== excludeFileId && readable(row.id, viewerId))
        .flatMap((row) => {
          const tier = tierOfNamed(keyword, row);
          return tier === null ? [] : [{ row, tier, lastAt: touched.get(row.id) ?? null }];
        })
        .sort(
          (a, b) => a.tier - b.tier || newestFirst(a.lastAt, b.lastAt) || newestFirst(a.row.updated_at, b.row.updated_at) || cmp(a.row.name, b.row.name) || cmp(a.row.id, b.row.id),
        )
        .map(({ row }) => ({ id: row.id, grantedRole: roleFromRank(grantedRank(row.id, viewerId)) }));
    },
    listReadableFiles: (userId: string, options: { limit: number; orderBy: 'created_at' | 'updated_at'; types?: readonly string[] }) =>
      files
        .filter((row) => readable(row.id, userId) && (!options.types?.length || options.types.includes(row.type)))
        .sort((a, b) => newestFirst(a[options.orderBy], b[options.orderBy]) || (a.id < b.id ? 1 : -1))
        .slice(0, options.limit)
        .map((row) => ({ id: row.id, grantedRole: roleFromRank(grantedRank(row.id, userId)) })),
  };
}
