import { sql } from 'kysely';
import {
  SUMMARY_DEPARTMENT_CAP,
  type BrowseCandidate,
  type BrowseItems,
  type BrowseKind,
  type DirectoryBrowseSource,
  type FileItem,
  type UserItem,
} from '../../directory/directory-browse.js';
import type { SearchKeyword } from '../../directory/search-keyword.js';
import { restrictionsOfRow } from './directory-rows.js';
import { namedGrants } from './file-grant-names.js';
import type { Db } from '../schema/schema.js';

const ID_CHUNK = 500;

/**
 * The console's directory reads over the store's tables. The candidate filter is a plain `LIKE '%k%'`
 * over the lower-case name, e-mail and the stored pinyin keys: every row the ranking rules can match
 * contains the keyword in one of them. It is used only for keywords of ASCII and caseless characters
 * (Chinese included), where both databases lower-case alike; any other keyword reads rows unfiltered.
 */
export function sqlDirectoryBrowse(db: Db): DirectoryBrowseSource {
  return {
    summary: () => summary(db),
    candidates: (kind, keyword, cap) => candidates(db, kind, keyword, cap),
    items: (kind, ids) => items(db, kind, ids),
  };
}

async function summary(db: Db) {
  const count = async (table: 'teams' | 'departments' | 'users' | 'files', activeOnly = false) => {
    let query = db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n'));
    if (activeOnly) query = query.where(sql.ref('active'), '=', 1);
    return Number((await query.executeTakeFirstOrThrow()).n);
  };
  const [teams, departments, users, activeUsers, files] = await Promise.all([count('teams'), count('departments'), count('users'), count('users', true), count('files')]);
  const teamRows = await db
    .selectFrom('teams as t')
    .select([
      't.id',
      't.name',
      (eb) =>
        eb
          .selectFrom('users as u')
          .whereRef('u.team_id', '=', 't.id')
          .where('u.active', '=', 1)
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('member_count'),
    ])
    .orderBy('t.name')
    .orderBy('t.id')
    .execute();
  const departmentRows = await db
    .selectFrom('departments as d')
    .select([
      'd.id',
      'd.name',
      'd.team_id',
      'd.parent_id',
      (eb) =>
        eb
          .selectFrom('user_departments as ud')
          .innerJoin('users as u', 'u.id', 'ud.user_id')
          .whereRef('ud.department_id', '=', 'd.id')
          .where('u.active', '=', 1)
          .select((e) => e.fn.countAll<number>().as('n'))
          .as('member_count'),
    ])
    .orderBy('d.name')
    .orderBy('d.id')
    .limit(SUMMARY_DEPARTMENT_CAP + 1)
    .execute();
  return {
    counts: { teams, departments, users, activeUsers, files },
    teams: teamRows.map((row) => ({ id: row.id, name: row.name, memberCount: Number(row.member_count ?? 0) })),
    departments: departmentRows.slice(0, SUMMARY_DEPARTMENT_CAP).map((row) => ({
      id: row.id,
      name: row.name,
      teamId: row.team_id,
      parentId: row.parent_id,
      memberCount: Number(row.member_count ?? 0),
    })),
    departmentsTruncated: departmentRows.length > SUMMARY_DEPARTMENT_CAP,
  };
}

/** Whether the keyword lower-cases alike in every database: ASCII, or characters without case. */
function filterable(keyword: SearchKeyword): boolean {
  return keyword.text !== '' && [...keyword.text].every((c) => c.charCodeAt(0) < 128 || c.toLowerCase() === c.toUpperCase());
}

/** `!` escapes LIKE's wildcards: a backslash in a string literal is an escape itself on MySQL, not on the other two. */
function likePattern(keyword: SearchKeyword): string {
  return `%${keyword.text.replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

async function candidates(db: Db, kind: BrowseKind, keyword: SearchKeyword, cap: number): Promise<{ rows: BrowseCandidate[]; truncated: boolean }> {
  const pattern = filterable(keyword) ? likePattern(keyword) : null;
  const like = (column: string) => sql<boolean>`${sql.raw(column)} LIKE ${pattern} ESCAPE '!'`;
  let rows: BrowseCandidate[];
  if (kind === 'team') {
    // Teams have no stored pinyin keys: few rows, keys computed by the ranking.
    rows = await db
      .selectFrom('teams')
      .select(['id', 'name'])
      .orderBy('name')
      .orderBy('id')
      .limit(cap + 1)
      .execute();
  } else if (kind === 'user') {
    let query = db.selectFrom('users').select(['id', 'name', 'email', 'name_pinyin as pinyin', 'name_initials as initials']);
    if (pattern !== null) query = query.where(sql<boolean>`(${like('lower(name)')} OR ${like('lower(email)')} OR ${like('name_pinyin')} OR ${like('name_initials')})`);
    rows = await query
      .orderBy('name')
      .orderBy('id')
      .limit(cap + 1)
      .execute();
  } else {
    const table = kind === 'department' ? 'departments' : 'files';
    let query = db.selectFrom(table).select(['id', 'name', 'name_pinyin as pinyin', 'name_initials as initials']);
    if (pattern !== null) query = query.where(sql<boolean>`(${like('lower(name)')} OR ${like('name_pinyin')} OR ${like('name_initials')})`);
    rows = await query
      .orderBy('name')
      .orderBy('id')
      .limit(cap + 1)
      .execute();
  }
  // Ordered here too: the databases' collations may order names differently, the ranking's ties may not.
  const shown = rows.slice(0, cap).sort((a, b) => compareText(a.name, b.name) || compareText(a.id, b.id));
  return { rows: shown, truncated: rows.length > cap };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function items<K extends BrowseKind>(db: Db, kind: K, ids: readonly string[]): Promise<Array<BrowseItems[K]>> {
  const found: Array<BrowseItems[BrowseKind]> = [];
  for (let start = 0; start < ids.length; start += ID_CHUNK) {
    const chunk = ids.slice(start, start + ID_CHUNK);
    if (kind === 'team') found.push(...(await db.selectFrom('teams').select(['id', 'name']).where('id', 'in', chunk).execute()));
    if (kind === 'department') {
      const rows = await db.selectFrom('departments').select(['id', 'name', 'team_id', 'parent_id']).where('id', 'in', chunk).execute();
      found.push(...rows.map((row) => ({ id: row.id, name: row.name, teamId: row.team_id, parentId: row.parent_id })));
    }
    if (kind === 'user') found.push(...(await userItems(db, chunk)));
    if (kind === 'file') found.push(...(await fileItems(db, chunk)));
  }
  return found as Array<BrowseItems[K]>;
}

async function userItems(db: Db, ids: string[]): Promise<UserItem[]> {
  if (ids.length === 0) return [];
  const [users, memberships] = await Promise.all([
    db.selectFrom('users').select(['id', 'name', 'email', 'team_id', 'active']).where('id', 'in', ids).execute(),
    db
      .selectFrom('user_departments as ud')
      .innerJoin('departments as d', 'd.id', 'ud.department_id')
      .select(['ud.user_id', 'd.id', 'd.name'])
      .where('ud.user_id', 'in', ids)
      .orderBy('d.name')
      .orderBy('d.id')
      .execute(),
  ]);
  return users.map((row) => ({
    id: row.id,
    name: row.name,
    email: row.email,
    teamId: row.team_id,
    active: Number(row.active) !== 0,
    departments: memberships.filter((m) => m.user_id === row.id).map((m) => ({ id: m.id, name: m.name })),
  }));
}

async function fileItems(db: Db, ids: string[]): Promise<FileItem[]> {
  if (ids.length === 0) return [];
  const [files, grants] = await Promise.all([
    db
      .selectFrom('files')
      .select(['id', 'name', 'type', 'creator_id', 'team_id', 'status', 'updated_at', 'restrict_copy', 'restrict_export', 'restrict_keys'])
      .where('id', 'in', ids)
      .execute(),
    namedGrants(db, ids),
  ]);
  return files.map((row) => ({
    id: row.id,
    name: row.name,
    type: row.type,
    creatorId: row.creator_id,
    teamId: row.team_id,
    status: row.status,
    updatedAt: row.updated_at,
    restrictions: restrictionsOfRow(row),
    sharing: grants
      .filter((grant) => grant.fileId === row.id)
      .map((grant) => ({ principal: `${grant.principalKind}:${grant.principalId}`, principalName: grant.principalName, role: grant.role })),
  }));
}
