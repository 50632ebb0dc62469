import type SQLite from 'better-sqlite3';
import type { Selectable } from 'kysely';
import type { Database } from './schema.js';

type UserRow = Selectable<Database['users']>;
type FileRow = Selectable<Database['files']> & { has_content: number };

/**
 * The strongest role rank granted to :userId on :fileId, the same principals as
 * SqlDirectory.getGrantedRole: the user, the user's team, and every ancestor (self included) of each of
 * the user's departments. Each branch is a primary-key probe.
 */
const GRANTED_RANK = `
  SELECT MAX(role_rank) FROM (
    SELECT role_rank FROM file_grants
     WHERE file_id = :fileId AND principal_kind = 'user' AND principal_id = :userId
    UNION ALL
    SELECT g.role_rank FROM users u
      JOIN file_grants g ON g.file_id = :fileId AND g.principal_kind = 'team' AND g.principal_id = u.team_id
     WHERE u.id = :userId
    UNION ALL
    SELECT g.role_rank FROM user_departments ud
      JOIN department_ancestors a ON a.department_id = ud.department_id
      JOIN file_grants g ON g.file_id = :fileId AND g.principal_kind = 'department' AND g.principal_id = a.ancestor_id
     WHERE ud.user_id = :userId
  )`;

/**
 * The three lookups every document open makes (the token's user, the file, the viewer's strongest grant),
 * as prepared statements on a read-only SQLite connection of their own. Going around Kysely saves its
 * per-query work on the hottest path; the separate connection reads only committed data (WAL), so a
 * transaction in flight on the main connection is never seen half done.
 */
export class SqliteHotReads {
  private readonly user: SQLite.Statement<[string], UserRow>;
  private readonly file: SQLite.Statement<[string], FileRow>;
  private readonly grant: SQLite.Statement<{ fileId: string; userId: string }, { rank: number | null }>;
  private readonly fileAndGrant: SQLite.Statement<{ fileId: string; userId: string }, FileRow & { granted_rank: number | null }>;

  constructor(reader: SQLite.Database) {
    this.user = reader.prepare('SELECT * FROM users WHERE id = ?');
    this.file = reader.prepare(
      `SELECT f.*, CASE WHEN c.file_id IS NULL THEN 0 ELSE 1 END AS has_content
         FROM files f LEFT JOIN file_contents c ON c.file_id = f.id
        WHERE f.id = ?`,
    );
    this.grant = reader.prepare(`SELECT (${GRANTED_RANK}) AS rank`);
    this.fileAndGrant = reader.prepare(
      `SELECT f.*, CASE WHEN c.file_id IS NULL THEN 0 ELSE 1 END AS has_content, (${GRANTED_RANK}) AS granted_rank
         FROM files f LEFT JOIN file_contents c ON c.file_id = f.id
        WHERE f.id = :fileId`,
    );
  }

  /** The file and the viewer's strongest granted role in one statement (every document open). */
  fileWithGrant(fileId: string, userId: string): (FileRow & { granted_rank: number | null }) | undefined {
    return this.fileAndGrant.get({ fileId, userId });
  }

  userById(userId: string): UserRow | undefined {
    return this.user.get(userId);
  }

  fileById(fileId: string): FileRow | undefined {
    return this.file.get(fileId);
  }

  /** The strongest role rank any grant gives the user on the file, or null. */
  grantedRank(fileId: string, userId: string): number | null {
    return this.grant.get({ fileId, userId })?.rank ?? null;
  }
}
