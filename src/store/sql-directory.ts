import { CompiledQuery, sql, type Kysely, type Selectable } from 'kysely';
import type { Directory, FileOrder, FileWithGrant, StoredContent } from '../directory/directory.js';
import { roleFromRank } from '../directory/permissions.js';
import type {
  Department,
  DepartmentPathNode,
  DepartmentSummary,
  FileRecord,
  FileStatus,
  PageRequest,
  Paged,
  Role,
  Team,
  User,
} from '../directory/types.js';
import type { DirectorySearch } from '../directory/search-port.js';
import type { OpenDatabase } from './database.js';
import { isPostgres } from './dialect.js';
import { principalsSql } from './principals-sql.js';
import type { Database } from './schema.js';
import { SqliteHotReads } from './sqlite-hot-reads.js';
import { PostgresHotReads } from './postgres-hot-reads.js';
import type { FileWithRankRow, HotReads } from './hot-reads.js';
import { HOT_SQL, forPostgres, forSqlite, sqliteValues } from './hot-read-sql.js';
import { SqlSearch } from './sql-search.js';

type UserRow = Selectable<Database['users']>;
type FileRow = Selectable<Database['files']> & { has_content: number | boolean | null };

const ID_CHUNK = 500;


/** The Directory port over collab-host's own tables (SQLite or PostgreSQL through one Kysely schema). */
export class SqlDirectory implements Directory {
  private readonly search: SqlSearch;

  private readonly postgres: boolean;

  /**
   * `hotReads`: the lookups of every document open as prepared statements (SqliteHotReads on an SQLite
   * file's read connection, PostgresHotReads as named statements); without it they run through Kysely.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly hotReads?: HotReads,
  ) {
    this.search = new SqlSearch(db);
    this.postgres = isPostgres(db);
  }

  /** The directory over an open store, with prepared hot reads where the store allows them. */
  static over(store: OpenDatabase): SqlDirectory {
    if (store.sqliteReader) return new SqlDirectory(store.db, new SqliteHotReads(store.sqliteReader));
    if (store.pgPool) return new SqlDirectory(store.db, new PostgresHotReads(store.pgPool));
    return new SqlDirectory(store.db);
  }

  /** A hot-read statement through Kysely (in-memory SQLite), in this dialect's placeholders. */
  private async hotQuery<R>(text: string, parameters: readonly string[]): Promise<R | undefined> {
    const sqlite = forSqlite(text);
    const query = this.postgres ? CompiledQuery.raw(forPostgres(text), [...parameters]) : CompiledQuery.raw(sqlite.text, sqliteValues(sqlite, parameters));
    return (await this.db.executeQuery<R>(query)).rows[0];
  }

  // @-mention search: src/store/sql-search.ts.
  searchTeamMembers(query: Parameters<DirectorySearch['searchTeamMembers']>[0]) {
    return this.search.searchTeamMembers(query);
  }
  searchCollaborators(query: Parameters<DirectorySearch['searchCollaborators']>[0]) {
    return this.search.searchCollaborators(query);
  }
  searchRecentContacts(query: Parameters<DirectorySearch['searchRecentContacts']>[0]) {
    return this.search.searchRecentContacts(query);
  }
  searchDepartments(query: Parameters<DirectorySearch['searchDepartments']>[0]) {
    return this.search.searchDepartments(query);
  }
  searchReadableFiles(query: Parameters<DirectorySearch['searchReadableFiles']>[0]) {
    return this.search.searchReadableFiles(query);
  }

  async getUser(userId: string): Promise<User | undefined> {
    if (this.hotReads) {
      const hot = await this.hotReads.userById(userId);
      return hot && toUser(hot);
    }
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst();
    return row && toUser(row);
  }

  async getUsers(userIds: readonly string[]): Promise<User[]> {
    const unique = [...new Set(userIds)];
    const users: User[] = [];
    for (let start = 0; start < unique.length; start += ID_CHUNK) {
      const rows = await this.db
        .selectFrom('users')
        .selectAll()
        .where('id', 'in', unique.slice(start, start + ID_CHUNK))
        .execute();
      users.push(...rows.map(toUser));
    }
    return users;
  }

  async getTeam(teamId: string): Promise<Team | undefined> {
    return this.db.selectFrom('teams').select(['id', 'name']).where('id', '=', teamId).executeTakeFirst();
  }

  async countTeamMembers(teamId: string): Promise<number> {
    const row = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('team_id', '=', teamId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async listTeamMembers(teamId: string, page: PageRequest | null): Promise<User[]> {
    let query = this.db.selectFrom('users').selectAll().where('team_id', '=', teamId).orderBy('name').orderBy('id');
    if (page) query = query.limit(page.limit).offset(page.offset);
    return (await query.execute()).map(toUser);
  }

  async getDepartment(departmentId: string): Promise<Department | undefined> {
    const row = await this.db
      .selectFrom('departments')
      .select(['id', 'name', 'team_id', 'parent_id'])
      .where('id', '=', departmentId)
      .executeTakeFirst();
    return row && { id: row.id, name: row.name, teamId: row.team_id, parentId: row.parent_id };
  }

  async countAllDepartmentMembers(departmentId: string): Promise<number> {
    const counts = await this.countSubtreeMembers([departmentId]);
    return counts.get(departmentId) ?? 0;
  }

  async listChildDepartments(teamId: string, parentId: string | null): Promise<DepartmentSummary[]> {
    const rows = await this.db
      .selectFrom('departments')
      .select(['id', 'name'])
      .where('team_id', '=', teamId)
      .where('parent_id', parentId === null ? 'is' : '=', parentId)
      .orderBy('name')
      .orderBy('id')
      .execute();
    const counts = await this.countSubtreeMembers(rows.map((row) => row.id));
    return rows.map((row) => ({ id: row.id, name: row.name, allMemberCount: counts.get(row.id) ?? 0 }));
  }

  async listDepartmentMembers(departmentId: string, page: PageRequest): Promise<Paged<User>> {
    const [total, rows] = await Promise.all([
      this.db
        .selectFrom('user_departments')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('department_id', '=', departmentId)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('user_departments as ud')
        .innerJoin('users as u', 'u.id', 'ud.user_id')
        .selectAll('u')
        .where('ud.department_id', '=', departmentId)
        .orderBy('u.name')
        .orderBy('u.id')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
    ]);
    return { total: Number(total.count), items: rows.map(toUser) };
  }

  async listDepartmentAncestors(departmentId: string): Promise<DepartmentPathNode[]> {
    return this.db
      .selectFrom('department_ancestors as a')
      .innerJoin('departments as d', 'd.id', 'a.ancestor_id')
      .select(['d.id', 'd.name'])
      .where('a.department_id', '=', departmentId)
      .where('a.depth', '>', 0)
      .orderBy('a.depth', 'desc')
      .execute();
  }

  async listDepartmentPaths(userId: string): Promise<DepartmentPathNode[][]> {
    const rows = await this.db
      .selectFrom('user_departments as ud')
      .innerJoin('department_ancestors as a', 'a.department_id', 'ud.department_id')
      .innerJoin('departments as d', 'd.id', 'a.ancestor_id')
      .select(['ud.department_id as leaf', 'd.id', 'd.name'])
      .where('ud.user_id', '=', userId)
      .orderBy('ud.department_id')
      .orderBy('a.depth', 'desc')
      .execute();
    const paths = new Map<string, DepartmentPathNode[]>();
    for (const row of rows) {
      const path = paths.get(row.leaf) ?? [];
      path.push({ id: row.id, name: row.name });
      paths.set(row.leaf, path);
    }
    return [...paths.values()];
  }

  async getFile(fileId: string): Promise<FileRecord | undefined> {
    const row = await this.db
      .selectFrom('files as f')
      .leftJoin('file_contents as c', 'c.file_id', 'f.id')
      .selectAll('f')
      .select(sql<number>`CASE WHEN c.file_id IS NULL THEN 0 ELSE 1 END`.as('has_content'))
      .where('f.id', '=', fileId)
      .executeTakeFirst();
    return row && toFile(row);
  }

  async getFileForViewer(fileId: string, userId: string): Promise<FileWithGrant | undefined> {
    const row = this.hotReads
      ? await this.hotReads.fileWithGrant(fileId, userId)
      : await this.hotQuery<FileWithRankRow>(HOT_SQL.fileWithGrant, [fileId, userId]);
    return row && { file: toFile(row), grantedRole: row.granted_rank == null ? null : roleFromRank(Number(row.granted_rank)) };
  }

  async getGrantedRole(fileId: string, userId: string): Promise<Role | null> {
    const rank = this.hotReads
      ? await this.hotReads.grantedRank(fileId, userId)
      : (await this.hotQuery<{ rank: number | null }>(HOT_SQL.grantedRank, [fileId, userId]))?.rank;
    return rank == null ? null : roleFromRank(Number(rank));
  }

  async listReadableFiles(
    userId: string,
    options: { limit: number; orderBy: FileOrder; types?: readonly string[] },
  ): Promise<FileWithGrant[]> {
    const order = sql.ref(`f.${options.orderBy === 'created_at' ? 'created_at' : 'updated_at'}`);
    const typeFilter =
      options.types && options.types.length > 0 ? sql`AND f.type IN (${sql.join(options.types.map((type) => sql`${type}`))})` : sql``;
    // Candidates are the files granted to any of the viewer's principals plus the viewer's own; only
    // those are joined with files, never a scan of every file.
    const result = await sql<FileRow & { granted_rank: number | null }>`
      WITH principals (kind, id) AS (${principalsSql(userId)}),
      granted AS (
        SELECT g.file_id, MAX(g.role_rank) AS role_rank
          FROM file_grants g JOIN principals p ON g.principal_kind = p.kind AND g.principal_id = p.id
         GROUP BY g.file_id
      ),
      candidates AS (
        SELECT file_id FROM granted
        UNION
        SELECT id FROM files WHERE creator_id = ${userId}
      )
      SELECT f.*, granted.role_rank AS granted_rank,
             CASE WHEN c.file_id IS NULL THEN 0 ELSE 1 END AS has_content
        FROM candidates k
        JOIN files f ON f.id = k.file_id
        LEFT JOIN granted ON granted.file_id = f.id
        LEFT JOIN file_contents c ON c.file_id = f.id
       WHERE f.status = 'active' ${typeFilter}
       ORDER BY ${order} DESC, f.id DESC
       LIMIT ${options.limit}
    `.execute(this.db);
    return result.rows.map((row) => ({
      file: toFile(row),
      grantedRole: row.granted_rank == null ? null : roleFromRank(Number(row.granted_rank)),
    }));
  }

  async listDirectGrantees(fileId: string): Promise<Array<{ user: User; role: Role }>> {
    const rows = await this.db
      .selectFrom('file_grants as g')
      .innerJoin('users as u', 'u.id', 'g.principal_id')
      .selectAll('u')
      .select('g.role_rank')
      .where('g.file_id', '=', fileId)
      .where('g.principal_kind', '=', 'user')
      .orderBy('u.name')
      .orderBy('u.id')
      .execute();
    return rows.flatMap((row) => {
      const role = roleFromRank(row.role_rank);
      return role ? [{ user: toUser(row), role }] : [];
    });
  }

  async getGrantedRoles(fileId: string, userIds: readonly string[]): Promise<Map<string, Role>> {
    const roles = new Map<string, Role>();
    const unique = [...new Set(userIds)];
    for (let start = 0; start < unique.length; start += ID_CHUNK) {
      const chunk = unique.slice(start, start + ID_CHUNK);
      // Each user's principals (self, team, departments with their ancestors) joined with the file's grants.
      const rows = await sql<{ user_id: string; rank: number }>`
        WITH principals (user_id, kind, id) AS (
          SELECT id, 'user', id FROM users WHERE id IN (${sql.join(chunk)})
          UNION ALL
          SELECT id, 'team', team_id FROM users WHERE id IN (${sql.join(chunk)}) AND team_id IS NOT NULL
          UNION ALL
          SELECT ud.user_id, 'department', a.ancestor_id
            FROM user_departments ud JOIN department_ancestors a ON a.department_id = ud.department_id
           WHERE ud.user_id IN (${sql.join(chunk)})
        )
        SELECT p.user_id, MAX(g.role_rank) AS rank
          FROM principals p
          JOIN file_grants g ON g.file_id = ${fileId} AND g.principal_kind = p.kind AND g.principal_id = p.id
         GROUP BY p.user_id
      `.execute(this.db);
      for (const row of rows.rows) {
        const role = roleFromRank(Number(row.rank));
        if (role) roles.set(row.user_id, role);
      }
    }
    return roles;
  }

  async getFileContent(fileId: string): Promise<StoredContent | undefined> {
    const row = await this.db
      .selectFrom('file_contents')
      .select(['content_type', 'content'])
      .where('file_id', '=', fileId)
      .executeTakeFirst();
    return row && { contentType: row.content_type, content: Buffer.from(row.content) };
  }

  /** Distinct members of each department's subtree, in one grouped query. */
  private async countSubtreeMembers(departmentIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (let start = 0; start < departmentIds.length; start += ID_CHUNK) {
      const rows = await this.db
        .selectFrom('department_ancestors as a')
        .innerJoin('user_departments as ud', 'ud.department_id', 'a.department_id')
        .select(['a.ancestor_id', (eb) => eb.fn.count<number>('ud.user_id').distinct().as('count')])
        .where('a.ancestor_id', 'in', departmentIds.slice(start, start + ID_CHUNK))
        .groupBy('a.ancestor_id')
        .execute();
      for (const row of rows) counts.set(row.ancestor_id, Number(row.count));
    }
    return counts;
  }
}

export function toUser(row: UserRow): User {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    avatar: row.avatar,
    teamId: row.team_id,
    watermark: row.watermark === null ? null : (JSON.parse(row.watermark) as string[]),
  };
}

export function toFile(row: FileRow): FileRecord {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    creatorId: row.creator_id,
    teamId: row.team_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    views: row.views,
    ext: row.ext,
    downloadUrl: row.download_url,
    fullUrl: row.full_url,
    hasStoredContent: Number(row.has_content ?? 0) === 1,
    restrictions: { copy: row.restrict_copy === 0, export: row.restrict_export === 0 },
    status: row.status as FileStatus,
  };
}
