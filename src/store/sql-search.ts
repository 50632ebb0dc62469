import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { FileWithGrant } from '../directory/directory.js';
import { roleFromRank } from '../directory/permissions.js';
import {
  DEPARTMENT_FALLBACK_USERS,
  RECENT_ACTIVITY_ROWS,
  type DepartmentHit,
  type DirectorySearch,
  type SearchQuery,
} from '../directory/search-port.js';
import { SEARCH_COUNT_CAP } from '../directory/search-page.js';
import type { DepartmentPathNode, PageRequest, Paged, User } from '../directory/types.js';
import { isPostgres, type DialectName } from './dialect.js';
import { principalsSql } from './principals-sql.js';
import type { Database } from './schema.js';
import { toFile, toUser } from './sql-directory.js';
import { candidateIdsSql, containsKeywordSql, hasIndexPath, indexFilterSql, tierSql, type MatchTarget } from './sql-search-match.js';

type FileRow = Selectable<Database['files']>;

const USERS: MatchTarget = { kind: 'user', alias: 'u' };
const DEPARTMENTS: MatchTarget = { kind: 'department', alias: 'd' };
const FILES: MatchTarget = { kind: 'file', alias: 'f' };

/**
 * Keyword matches of files counted before choosing where a file search starts: under this many, from the
 * matches (each checked against the viewer's readable set); at or over it, from the viewer's readable
 * files (each matched on its name). Either way the work is bounded by the smaller side.
 */
export const FILE_MATCH_PROBE = 2000;

/** The newest files the empty keyword's file search walks before it ranks the readable set instead. */
export const RECENT_FILE_WALK = 5000;

/**
 * The search half of the Directory port in SQL (SQLite and PostgreSQL). Each search ranks narrow rows
 * (id and the order's columns) of a scope narrowed by an index when there is a keyword
 * (sql-search-match.ts), counts them with COUNT(*) OVER () and cuts the page; the page's rows are then
 * loaded by primary key with their details (roles, ancestors, member counts), one query per detail.
 * Counts stop at SEARCH_COUNT_CAP; an empty keyword over a whole team walks the (team_id, name, id)
 * index instead of ranking every member.
 */
export class SqlSearch implements DirectorySearch {
  private readonly dialect: DialectName;

  private readonly fileMatchProbe: number;
  private readonly recentFileWalk: number;

  /** The bounds default to FILE_MATCH_PROBE and RECENT_FILE_WALK (tests vary them to take each plan). */
  constructor(
    private readonly db: Kysely<Database>,
    options: { fileMatchProbe?: number; recentFileWalk?: number } = {},
  ) {
    this.dialect = isPostgres(db) ? 'postgres' : 'sqlite';
    this.fileMatchProbe = options.fileMatchProbe ?? FILE_MATCH_PROBE;
    this.recentFileWalk = options.recentFileWalk ?? RECENT_FILE_WALK;
  }

  async searchTeamMembers(query: SearchQuery & { teamId: string }): Promise<Paged<User>> {
    const { keyword } = query;
    if (keyword.text === '') return this.teamMembersByName(query);
    const matches = this.indexMatches(USERS, 'users', keyword);
    const { total, rows } = await this.ranked<{ id: string }>(
      sql`contacts AS (${contactsSql(query.viewerId)})`,
      sql`SELECT u.id, u.name, ${tierSql(this.dialect, USERS, keyword)} AS tier, c.last_at AS last_at
            FROM ${matches.from} LEFT JOIN contacts c ON c.user_id = u.id
           WHERE u.team_id = ${query.teamId} ${matches.where}`,
      sql`m.tier, m.last_at DESC NULLS LAST, m.name, m.id`,
      query.page,
    );
    return { total, items: await this.usersByIds(rows.map((row) => row.id)) };
  }

  /**
   * The empty keyword: every member matches at the same tier, so the order is the viewer's contacts in
   * the team (a small set) by last contact, then everyone else straight from the (team_id, name, id)
   * index; the count stops at the cap.
   */
  private async teamMembersByName(query: SearchQuery & { teamId: string }): Promise<Paged<User>> {
    const { page, teamId } = query;
    const contacts = sql`contacts AS (${contactsSql(query.viewerId)})`;
    const counted = await sql<{ total: number }>`
      SELECT COUNT(*) AS total FROM (SELECT 1 AS one FROM users WHERE team_id = ${teamId} LIMIT ${SEARCH_COUNT_CAP}) c`.execute(this.db);
    const total = Number(counted.rows[0]?.total ?? 0);
    if (page.limit === 0) return { total, items: [] };
    // CROSS JOIN: from the few contacts, never from the team's members.
    const known = await sql<{ id: string }>`
      WITH ${contacts}
      SELECT u.id FROM contacts c CROSS JOIN users u
       WHERE u.id = c.user_id AND u.team_id = ${teamId}
       ORDER BY c.last_at DESC, u.name, u.id`.execute(this.db);
    const ids = known.rows.slice(page.offset, page.offset + page.limit).map((row) => row.id);
    const wanted = page.limit - ids.length;
    if (wanted > 0) {
      const rest = await sql<{ id: string }>`
        WITH ${contacts}
        SELECT id FROM users
         WHERE team_id = ${teamId} AND id NOT IN (SELECT user_id FROM contacts)
         ORDER BY name, id
         LIMIT ${wanted} OFFSET ${Math.max(0, page.offset - known.rows.length)}`.execute(this.db);
      ids.push(...rest.rows.map((row) => row.id));
    }
    return { total, items: await this.usersByIds(ids) };
  }

  async searchCollaborators(query: SearchQuery & { fileId: string }): Promise<Paged<User>> {
    const { total, rows } = await this.ranked<{ id: string }>(
      sql`contacts AS (${contactsSql(query.viewerId)}),
          collaborators AS (
            SELECT creator_id AS user_id FROM files WHERE id = ${query.fileId}
            UNION
            SELECT principal_id FROM file_grants WHERE file_id = ${query.fileId} AND principal_kind = 'user'
          )`,
      sql`SELECT u.id, u.name, ${tierSql(this.dialect, USERS, query.keyword)} AS tier, c.last_at AS last_at
            FROM collaborators k JOIN users u ON u.id = k.user_id LEFT JOIN contacts c ON c.user_id = u.id`,
      sql`m.tier, m.last_at DESC NULLS LAST, m.name, m.id`,
      query.page,
    );
    return { total, items: await this.usersByIds(rows.map((row) => row.id)) };
  }

  async searchRecentContacts(query: SearchQuery & { fileId: string | null }): Promise<Paged<User>> {
    const viewer = query.viewerId;
    // source: 0 mentions either way, 1 activity on the file, 2 the file's collaborators, 3 same department.
    const sources: RawBuilder<unknown>[] = [
      sql`SELECT * FROM (SELECT related_user_id AS user_id, occurred_at, 0 AS source FROM activity
            WHERE user_id = ${viewer} AND related_user_id IS NOT NULL ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) s0`,
      sql`SELECT * FROM (SELECT user_id, occurred_at, 0 AS source FROM activity
            WHERE related_user_id = ${viewer} ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) s1`,
    ];
    if (query.fileId !== null) {
      sources.push(
        sql`SELECT * FROM (SELECT user_id, occurred_at, 1 AS source FROM activity
              WHERE file_id = ${query.fileId} ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) s2`,
        sql`SELECT creator_id AS user_id, NULL AS occurred_at, 2 AS source FROM files WHERE id = ${query.fileId}`,
        sql`SELECT principal_id, NULL, 2 FROM file_grants WHERE file_id = ${query.fileId} AND principal_kind = 'user'`,
      );
    }
    sources.push(
      sql`SELECT * FROM (SELECT ud2.user_id, NULL AS occurred_at, 3 AS source
            FROM user_departments ud JOIN user_departments ud2 ON ud2.department_id = ud.department_id
           WHERE ud.user_id = ${viewer} LIMIT ${DEPARTMENT_FALLBACK_USERS}) s3`,
    );
    const { total, rows } = await this.ranked<{ id: string }>(
      sql`related AS (
            SELECT x.user_id, MAX(x.occurred_at) AS last_at, MIN(x.source) AS source
              FROM (${sql.join(sources, sql` UNION ALL `)}) x
             WHERE x.user_id IS NOT NULL AND x.user_id <> ${viewer}
             GROUP BY x.user_id
          )`,
      sql`SELECT u.id, u.name, ${tierSql(this.dialect, USERS, query.keyword)} AS tier, r.last_at AS last_at, r.source AS source
            FROM related r JOIN users u ON u.id = r.user_id`,
      sql`m.tier, m.last_at DESC NULLS LAST, m.source, m.name, m.id`,
      query.page,
    );
    return { total, items: await this.usersByIds(rows.map((row) => row.id)) };
  }

  async searchDepartments(query: SearchQuery & { teamId: string }): Promise<Paged<DepartmentHit>> {
    const { keyword } = query;
    const { from, where } = keyword.text === '' ? { from: sql`departments d`, where: sql`` } : this.indexMatches(DEPARTMENTS, 'departments', keyword);
    const { total, rows } = await this.ranked<{ id: string; name: string }>(
      sql`mine AS (
            SELECT a.ancestor_id AS id FROM user_departments ud
              JOIN department_ancestors a ON a.department_id = ud.department_id
             WHERE ud.user_id = ${query.viewerId}
          )`,
      sql`SELECT d.id, d.name, ${tierSql(this.dialect, DEPARTMENTS, keyword)} AS tier,
                 CASE WHEN d.id IN (SELECT id FROM mine) THEN 0 ELSE 1 END AS mine
            FROM ${from}
           WHERE d.team_id = ${query.teamId} ${where}`,
      sql`m.tier, m.mine, m.name, m.id`,
      query.page,
    );
    const ids = rows.map((row) => row.id);
    const [ancestors, counts] = await Promise.all([this.ancestorsOf(ids), this.memberCounts(ids)]);
    return {
      total,
      items: rows.map((row) => ({
        id: row.id,
        name: row.name,
        allMemberCount: counts.get(row.id) ?? 0,
        parentDepartments: ancestors.get(row.id) ?? [],
      })),
    };
  }

  async searchReadableFiles(query: SearchQuery & { excludeFileId?: string }): Promise<Paged<FileWithGrant>> {
    const { keyword, viewerId } = query;
    const tier = tierSql(this.dialect, FILES, keyword);
    const exclude = query.excludeFileId === undefined ? sql`` : sql`AND f.id <> ${query.excludeFileId}`;
    const ctes = sql`principals (kind, id) AS (${principalsSql(viewerId)}),
      touched AS (
        SELECT t.file_id, MAX(t.occurred_at) AS last_at
          FROM (SELECT file_id, occurred_at FROM activity WHERE user_id = ${viewerId} AND file_id IS NOT NULL
                 ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) t
         GROUP BY t.file_id
      )`;
    const columns = sql`f.id, f.name, f.updated_at, ${tier} AS tier, t.last_at AS last_at`;
    // Two plans, whichever side is smaller (FILE_MATCH_PROBE). Few keyword matches: each is checked with
    // the grant primary key (file_id, principal_kind, principal_id) against the viewer's few principals.
    // Many matches, or no keyword: start from the viewer's readable files, built once as one set (each
    // principal's grants are one range of file_grants_by_principal), and match each on its name.
    const matches = (await this.fewFileMatches(keyword)) ? this.indexMatches(FILES, 'files', keyword) : null;
    const inner = matches
      ? sql`SELECT ${columns}
              FROM ${matches.from}
              LEFT JOIN touched t ON t.file_id = f.id
             WHERE f.status = 'active' ${exclude} ${matches.where}
               AND (${grantedSql} OR f.id IN (SELECT id FROM files WHERE creator_id = ${viewerId}))`
      : sql`SELECT ${columns}
              FROM (SELECT g.file_id FROM file_grants g JOIN principals p ON g.principal_kind = p.kind AND g.principal_id = p.id
                    UNION
                    SELECT id FROM files WHERE creator_id = ${viewerId}) k
              CROSS JOIN files f
              LEFT JOIN touched t ON t.file_id = f.id
             WHERE f.id = k.file_id AND f.status = 'active' ${exclude}
               ${keyword.text === '' ? sql`` : sql`AND ${containsKeywordSql(this.dialect, FILES, keyword)}`}`;
    const recent = keyword.text === '' ? await this.recentReadableFiles(ctes, exclude, query) : null;
    const { total, rows } = recent ?? (await this.ranked<{ id: string }>(ctes, inner, sql`m.tier, m.last_at DESC NULLS LAST, m.updated_at DESC, m.name, m.id`, query.page));
    const ids = rows.map((row) => row.id);
    const [files, ranks, stored] = await Promise.all([this.filesByIds(ids), this.grantedRanks(viewerId, ids), this.storedContents(ids)]);
    return {
      total,
      items: files.map((row) => {
        const rank = ranks.get(row.id);
        return {
          file: toFile({ ...row, has_content: stored.has(row.id) ? 1 : 0 }),
          grantedRole: rank === undefined ? null : roleFromRank(rank),
        };
      }),
    };
  }

  /**
   * The rows of `table` (as `target.alias`) the index lets through for a non-empty keyword, as a FROM
   * item and the WHERE terms (starting with AND) that go with it. SQLite: the match ids as a subquery,
   * CROSS JOINed so they stay the outer loop (its planner may otherwise walk a whole team and probe the
   * matches), the table joined back by primary key. PostgreSQL: the table itself with the indexed
   * condition, which it serves with a bitmap scan, so each match is read once.
   */
  private indexMatches(target: MatchTarget, table: 'users' | 'departments' | 'files', keyword: SearchQuery['keyword']) {
    const a = target.alias;
    if (this.dialect === 'postgres') {
      return { from: sql`${sql.table(table)} ${sql.raw(a)}`, where: sql`AND ${indexFilterSql(this.dialect, target, keyword)}` };
    }
    return {
      from: sql`(${candidateIdsSql(this.dialect, target, keyword)}) k CROSS JOIN ${sql.table(table)} ${sql.raw(a)}`,
      where: sql`AND ${sql.ref(`${a}.id`)} = k.id`,
    };
  }

  /**
   * The empty keyword's page of files without ranking every readable file: the touched files (a small
   * set) first, then the newest files walked from the updated_at index, each checked with the grant primary
   * key, until the page is full. The walk reads at most RECENT_FILE_WALK files (and their ties on
   * updated_at); when they do not fill the
   * page (a searcher who may read few files, or a deep page), null: the caller ranks the readable set.
   * The count is the readable set counted up to the cap.
   */
  private async recentReadableFiles(
    ctes: RawBuilder<unknown>,
    exclude: RawBuilder<unknown>,
    query: SearchQuery,
  ): Promise<{ total: number; rows: { id: string }[] } | null> {
    const { page, viewerId } = query;
    if (this.recentFileWalk < 1) return null;
    const readable = sql`(f.creator_id = ${viewerId} OR ${grantedSql})`;
    const counted = await sql<{ total: number }>`
      WITH ${ctes}
      SELECT COUNT(*) AS total FROM (
        SELECT f.id FROM (SELECT g.file_id FROM file_grants g JOIN principals p ON g.principal_kind = p.kind AND g.principal_id = p.id
                          UNION
                          SELECT id FROM files WHERE creator_id = ${viewerId}) k
        CROSS JOIN files f
        WHERE f.id = k.file_id AND f.status = 'active' ${exclude}
        LIMIT ${SEARCH_COUNT_CAP}) c`.execute(this.db);
    const total = Number(counted.rows[0]?.total ?? 0);
    if (page.limit === 0 || page.offset >= total) return { total, rows: [] };
    const touched = await sql<{ id: string }>`
      WITH ${ctes}
      SELECT f.id FROM touched t CROSS JOIN files f
       WHERE f.id = t.file_id AND f.status = 'active' ${exclude} AND ${readable}
       ORDER BY t.last_at DESC, f.updated_at DESC, f.name, f.id`.execute(this.db);
    const rows = touched.rows.slice(page.offset, page.offset + page.limit);
    const wanted = Math.min(page.limit - rows.length, total - page.offset - rows.length);
    if (wanted <= 0) return { total, rows };
    // The walk's bound as a time: files updated since the RECENT_FILE_WALK-th newest (ties included).
    const cut = await sql<{ updated_at: string }>`
      SELECT updated_at FROM files ORDER BY updated_at DESC LIMIT 1 OFFSET ${this.recentFileWalk - 1}`.execute(this.db);
    const since = cut.rows[0] ? sql`AND f.updated_at >= ${cut.rows[0].updated_at}` : sql``;
    const rest = await sql<{ id: string }>`
      WITH ${ctes}
      SELECT f.id FROM files f
       WHERE f.status = 'active' ${since} ${exclude} AND f.id NOT IN (SELECT file_id FROM touched) AND ${readable}
       ORDER BY f.updated_at DESC, f.name, f.id
       LIMIT ${wanted} OFFSET ${Math.max(0, page.offset - touched.rows.length)}`.execute(this.db);
    if (rest.rows.length < wanted) return null;
    return { total, rows: [...rows, ...rest.rows] };
  }

  /** Whether a file search should start from the keyword's index matches (see FILE_MATCH_PROBE). */
  private async fewFileMatches(keyword: SearchQuery['keyword']): Promise<boolean> {
    if (!hasIndexPath(keyword)) return false;
    const probe = await sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM (SELECT c.id FROM (${candidateIdsSql(this.dialect, FILES, keyword)}) c LIMIT ${this.fileMatchProbe}) p`.execute(this.db);
    return Number(probe.rows[0]?.n ?? 0) < this.fileMatchProbe;
  }

  /**
   * One ranked page of `inner` (a SELECT of narrow rows with `id` and a `tier` column, NULL for rows that
   * do not match) and the number of matching rows, at most SEARCH_COUNT_CAP.
   */
  private async ranked<R>(ctes: RawBuilder<unknown>, inner: RawBuilder<unknown>, order: RawBuilder<unknown>, page: PageRequest): Promise<{ total: number; rows: R[] }> {
    if (page.limit > 0) {
      const result = await sql<R & { total: number }>`
        WITH ${ctes}
        SELECT m.*, COUNT(*) OVER () AS total FROM (${inner}) m
         WHERE m.tier IS NOT NULL
         ORDER BY ${order}
         LIMIT ${page.limit} OFFSET ${page.offset}`.execute(this.db);
      const first = result.rows[0];
      if (first) return { total: Math.min(Number(first.total), SEARCH_COUNT_CAP), rows: result.rows };
      if (page.offset === 0) return { total: 0, rows: [] };
    }
    // A page past the end (or past the cap): the window had no row to carry the count.
    const count = await sql<{ total: number }>`
      WITH ${ctes}
      SELECT COUNT(*) AS total FROM (SELECT m.id FROM (${inner}) m WHERE m.tier IS NOT NULL LIMIT ${SEARCH_COUNT_CAP}) c`.execute(this.db);
    return { total: Number(count.rows[0]?.total ?? 0), rows: [] };
  }

  /** Users by id, in the order of `ids`. */
  private async usersByIds(ids: readonly string[]): Promise<User[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
    return inOrder(ids, rows).map(toUser);
  }

  /** Files by id, in the order of `ids`. */
  private async filesByIds(ids: readonly string[]): Promise<FileRow[]> {
    if (ids.length === 0) return [];
    return inOrder(ids, await this.db.selectFrom('files').selectAll().where('id', 'in', ids).execute());
  }

  /** The strongest role any of the viewer's principals is granted on each of the files. */
  private async grantedRanks(viewerId: string, fileIds: readonly string[]): Promise<Map<string, number>> {
    if (fileIds.length === 0) return new Map();
    const result = await sql<{ file_id: string; rank: number }>`
      WITH principals (kind, id) AS (${principalsSql(viewerId)})
      SELECT g.file_id, MAX(g.role_rank) AS rank
        FROM file_grants g JOIN principals p ON g.principal_kind = p.kind AND g.principal_id = p.id
       WHERE g.file_id IN (${sql.join(fileIds)})
       GROUP BY g.file_id`.execute(this.db);
    return new Map(result.rows.map((row) => [row.file_id, Number(row.rank)]));
  }

  private async storedContents(fileIds: readonly string[]): Promise<Set<string>> {
    if (fileIds.length === 0) return new Set();
    const rows = await this.db.selectFrom('file_contents').select('file_id').where('file_id', 'in', fileIds).execute();
    return new Set(rows.map((row) => row.file_id));
  }

  /** Ancestors of each department, first level down, itself excluded. */
  private async ancestorsOf(departmentIds: readonly string[]): Promise<Map<string, DepartmentPathNode[]>> {
    const paths = new Map<string, DepartmentPathNode[]>();
    if (departmentIds.length === 0) return paths;
    const rows = await this.db
      .selectFrom('department_ancestors as a')
      .innerJoin('departments as d', 'd.id', 'a.ancestor_id')
      .select(['a.department_id', 'd.id', 'd.name'])
      .where('a.department_id', 'in', departmentIds)
      .where('a.depth', '>', 0)
      .orderBy('a.department_id')
      .orderBy('a.depth', 'desc')
      .execute();
    for (const row of rows) {
      const path = paths.get(row.department_id) ?? [];
      path.push({ id: row.id, name: row.name });
      paths.set(row.department_id, path);
    }
    return paths;
  }

  /** Distinct members of each department's subtree. */
  private async memberCounts(departmentIds: readonly string[]): Promise<Map<string, number>> {
    if (departmentIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('department_ancestors as a')
      .innerJoin('user_departments as ud', 'ud.department_id', 'a.department_id')
      .select(['a.ancestor_id', (eb) => eb.fn.count<number>('ud.user_id').distinct().as('count')])
      .where('a.ancestor_id', 'in', departmentIds)
      .groupBy('a.ancestor_id')
      .execute();
    return new Map(rows.map((row) => [row.ancestor_id, Number(row.count)]));
  }
}

/**
 * Whether file `f` is granted to one of the viewer's principals (CTE `principals`): its few grants read by
 * primary key, each looked up in the principals, which are computed once per statement (a non-correlated
 * subquery) rather than per file.
 */
const grantedSql = sql`EXISTS (SELECT 1 FROM file_grants g WHERE g.file_id = f.id AND (g.principal_kind, g.principal_id) IN (SELECT kind, id FROM principals))`;

/** The rows in the order of `ids` (rows missing since, by a concurrent delete, are left out). */
function inOrder<T extends { id: string }>(ids: readonly string[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** (user_id, last_at): the latest mention between the viewer and each user, either way, over recent rows. */
function contactsSql(viewerId: string): RawBuilder<unknown> {
  return sql`
    SELECT x.user_id, MAX(x.occurred_at) AS last_at FROM (
      SELECT * FROM (SELECT related_user_id AS user_id, occurred_at FROM activity
        WHERE user_id = ${viewerId} AND related_user_id IS NOT NULL ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) a
      UNION ALL
      SELECT * FROM (SELECT user_id, occurred_at FROM activity
        WHERE related_user_id = ${viewerId} ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) b
    ) x GROUP BY x.user_id`;
}
