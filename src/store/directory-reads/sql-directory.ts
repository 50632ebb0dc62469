import { sql, type Kysely } from 'kysely';
import type { StoreDirectory, StoredContent } from '../../directory/directory.js';
import type { ActivityReads } from '../../directory/read-model/model-search.js';
import { roleFromRank } from '../../directory/permissions.js';
import type { FileWithGrant } from '../../directory/types.js';
import type { Department, DepartmentPathNode, DepartmentSummary, FileRecord, PageRequest, Paged, Role, Team, User } from '../../directory/types.js';
import type { OpenDatabase } from '../connection/database.js';
import { departmentPaths, departmentRows, directMemberIds, subtreeMemberCounts, teamMemberCount } from './department-facts.js';
import { DirectoryCaches } from './directory-caches.js';
import { toFile, toUser, type FileRow, type UserRow } from './directory-rows.js';
import { BundledActivityReads } from './activity-reads.js';
import { idListStatements } from './directory-statements.js';
import { dialectSql } from '../dialect/dialect-sql-for.js';
import { hotStatements, type FileForViewerRow } from './hot-read-sql.js';
import { dialectOf } from '../dialect/dialect.js';
import { kyselyReads, type PreparedReads } from '../statements/prepared-reads.js';
import type { ReadContext } from './read-context.js';
import { cachedViewerScope } from './viewer-scope.js';
import type { Database } from '../schema/schema.js';

const ID_CHUNK = 500;

export interface SqlDirectoryOptions {
  /** Prepared statements for the reads of every request; default: through Kysely. */
  reads?: PreparedReads;
  /** The clock of the caches (tests). */
  now?: () => number;
}

/**
 * The directory's records over collab-host's own tables (SQLite or PostgreSQL through one Kysely
 * schema): what the read model does not hold (stored bytes, the change version, the activity that
 * ranks searches), and every read for the commands that run without a read model. Search and the
 * readable-file lists are the read model's (src/directory/read-model/). Reads that repeat per request
 * (member counts, department facts, a user's scope) come from the caches of
 * src/store/directory-reads/directory-caches.ts, which follow every write through the directory's version rows.
 * Deactivated users are left out of every list of people and every member count; `getUser` and
 * `getUsers` still answer them.
 */
export class SqlDirectory implements StoreDirectory, ActivityReads {
  private readonly context: ReadContext;
  private readonly activity: BundledActivityReads;

  constructor(db: Kysely<Database>, options: SqlDirectoryOptions = {}) {
    const reads = options.reads ?? kyselyReads(db);
    const caches = new DirectoryCaches(reads, options.now ? { now: options.now } : {});
    this.context = { db, sql: dialectSql(db), reads, caches };
    this.activity = new BundledActivityReads(reads);
  }

  /**
   * The directory over an open store: on an SQLite file every read on its read connection (prepared
   * statements for the fixed ones), on PostgreSQL named statements.
   */
  static over(store: OpenDatabase): SqlDirectory {
    const reads = dialectOf(store.db).preparedReads(store);
    return new SqlDirectory(store.readDb ?? store.db, reads ? { reads } : {});
  }

  // ---- the activity that ranks searches from memory (src/directory/read-model/model-search.ts) ----
  contactsOf(viewerId: string): Promise<Map<string, string>> {
    return this.activity.contactsOf(viewerId);
  }
  touchedFilesOf(viewerId: string): Promise<Map<string, string>> {
    return this.activity.touchedFilesOf(viewerId);
  }
  activityOnFile(fileId: string): Promise<Map<string, string>> {
    return this.activity.activityOnFile(fileId);
  }

  async changeVersion(): Promise<string> {
    const { caches } = this.context;
    await caches.refresh();
    return `${caches.cache.versionOf('people')}:${caches.cache.versionOf('files')}:${caches.cache.versionOf('grants')}`;
  }

  async getUser(userId: string): Promise<User | undefined> {
    const [row] = await this.context.reads.rows<UserRow>(hotStatements(this.context.sql).userById, [userId]);
    return row && toUser(row);
  }

  async getUsers(userIds: readonly string[]): Promise<User[]> {
    const unique = [...new Set(userIds)];
    const users: User[] = [];
    const statement = idListStatements(this.context.sql).users;
    for (let start = 0; start < unique.length; start += ID_CHUNK) {
      const rows = await this.context.reads.rows<UserRow>(statement, [this.context.sql.idListValue(unique.slice(start, start + ID_CHUNK))]);
      users.push(...rows.map(toUser));
    }
    return users;
  }

  async getTeam(teamId: string): Promise<Team | undefined> {
    return this.context.db.selectFrom('teams').select(['id', 'name']).where('id', '=', teamId).executeTakeFirst();
  }

  async countTeamMembers(teamId: string): Promise<number> {
    await this.context.caches.refresh();
    return teamMemberCount(this.context, teamId);
  }

  async listTeamMembers(teamId: string, page: PageRequest | null): Promise<User[]> {
    let query = this.context.db.selectFrom('users').selectAll().where('team_id', '=', teamId).where('active', '=', 1).orderBy('name').orderBy('id');
    if (page) query = query.limit(page.limit).offset(page.offset);
    return (await query.execute()).map(toUser);
  }

  async getDepartment(departmentId: string): Promise<Department | undefined> {
    await this.context.caches.refresh();
    const row = (await departmentRows(this.context, [departmentId])).get(departmentId);
    return row && { id: row.id, name: row.name, teamId: row.team_id, parentId: row.parent_id };
  }

  async countAllDepartmentMembers(departmentId: string): Promise<number> {
    await this.context.caches.refresh();
    return (await subtreeMemberCounts(this.context, [departmentId])).get(departmentId) ?? 0;
  }

  async listChildDepartments(teamId: string, parentId: string | null): Promise<DepartmentSummary[]> {
    await this.context.caches.refresh();
    const rows = await this.context.db
      .selectFrom('departments')
      .select(['id', 'name'])
      .where('team_id', '=', teamId)
      .where('parent_id', parentId === null ? 'is' : '=', parentId)
      .orderBy('name')
      .orderBy('id')
      .execute();
    const counts = await subtreeMemberCounts(
      this.context,
      rows.map((row) => row.id),
    );
    return rows.map((row) => ({ id: row.id, name: row.name, allMemberCount: counts.get(row.id) ?? 0 }));
  }

  async listDepartmentMembers(departmentId: string, page: PageRequest): Promise<Paged<User>> {
    await this.context.caches.refresh();
    const ids = await directMemberIds(this.context, departmentId);
    const pageIds = ids.slice(page.offset, page.offset + page.limit);
    const users = new Map((await this.getUsers(pageIds)).map((user) => [user.id, user]));
    return { total: ids.length, items: pageIds.flatMap((id) => users.get(id) ?? []) };
  }

  async listDepartmentAncestors(departmentId: string): Promise<DepartmentPathNode[]> {
    await this.context.caches.refresh();
    return [...((await departmentPaths(this.context, [departmentId])).get(departmentId) ?? [])];
  }

  async listDepartmentPaths(userId: string): Promise<DepartmentPathNode[][]> {
    const rows = await this.context.db
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
    const [row] = await this.context.reads.rows<FileRow>(idListStatements(this.context.sql).files, [this.context.sql.idListValue([fileId])]);
    return row && toFile(row);
  }

  async getFileForViewer(fileId: string, userId: string): Promise<FileWithGrant | undefined> {
    const row = await this.withScope(userId, (principals) => this.context.reads.rows<FileForViewerRow>(hotStatements(this.context.sql).fileForViewer, [fileId, principals]));
    return row && { file: toFile(row), grantedRole: row.granted_rank == null ? null : roleFromRank(Number(row.granted_rank)) };
  }

  async getGrantedRole(fileId: string, userId: string): Promise<Role | null> {
    const row = await this.withScope(userId, (principals) =>
      this.context.reads.rows<{ rank: number | null; people_version: number }>(hotStatements(this.context.sql).grantedRank, [fileId, principals]),
    );
    return row?.rank == null ? null : roleFromRank(Number(row.rank));
  }

  /**
   * Runs a statement that takes the viewer's principals (from the cached scope) and returns the people
   * version with its row: one statement per call while no write has moved that version, and the scope
   * read again (and the statement run again) when one has.
   */
  private async withScope<R extends { people_version: number }>(userId: string, run: (principals: unknown) => R[] | Promise<R[]>): Promise<R | undefined> {
    const { caches } = this.context;
    if (caches.cache.versionOf('people') === undefined) await caches.refresh();
    for (let attempt = 0; ; attempt += 1) {
      const scope = await cachedViewerScope(this.context, userId);
      const [row] = await run(this.context.sql.idListValue(scope.principals));
      if (!row || attempt > 0 || Number(row.people_version) === caches.cache.versionOf('people')) return row;
      await caches.refresh();
    }
  }

  async listDirectGrantees(fileId: string): Promise<Array<{ user: User; role: Role }>> {
    const rows = await this.context.db
      .selectFrom('file_grants as g')
      .innerJoin('users as u', 'u.id', 'g.principal_id')
      .selectAll('u')
      .select('g.role_rank')
      .where('g.file_id', '=', fileId)
      .where('g.principal_kind', '=', 'user')
      .where('u.active', '=', 1)
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
      `.execute(this.context.db);
      for (const row of rows.rows) {
        const role = roleFromRank(Number(row.rank));
        if (role) roles.set(row.user_id, role);
      }
    }
    return roles;
  }

  async getFileContent(fileId: string): Promise<StoredContent | undefined> {
    const row = await this.context.db
      .selectFrom('file_contents')
      .select(['content_type', 'content'])
      .where('file_id', '=', fileId)
      .where('in_database', '=', 1) // bytes outside the database are read through FileStorage (src/storage)
      .executeTakeFirst();
    return row && { contentType: row.content_type, content: Buffer.from(row.content) };
  }
}
