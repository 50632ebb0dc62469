import { DEPARTMENT_FALLBACK_USERS, RECENT_ACTIVITY_ROWS } from '../../directory/search-port.js';
import type { DialectSql } from '../dialect-sql.js';
import { Statement } from '../statement.js';

/** The fixed statements of search (run prepared, src/store/prepared-reads.ts). */
export const SEARCH_SQL = {
  /** (user_id, last_at): the latest mention between $1 and each user, either way, over recent rows. */
  contacts: new Statement(`
    SELECT x.user_id, MAX(x.occurred_at) AS last_at FROM (
      SELECT * FROM (SELECT related_user_id AS user_id, occurred_at FROM activity
        WHERE user_id = $1 AND related_user_id IS NOT NULL ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) a
      UNION ALL
      SELECT * FROM (SELECT user_id, occurred_at FROM activity
        WHERE related_user_id = $1 ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) b
    ) x GROUP BY x.user_id`),
  /** (file_id, last_at): the files $1 touched lately. */
  touchedFiles: new Statement(`
    SELECT t.file_id, MAX(t.occurred_at) AS last_at
      FROM (SELECT file_id, occurred_at FROM activity WHERE user_id = $1 AND file_id IS NOT NULL
             ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) t
     GROUP BY t.file_id`),
  /** (user_id, last_at): who was active on file $1 lately. */
  fileActivity: new Statement(`
    SELECT t.user_id, MAX(t.occurred_at) AS last_at
      FROM (SELECT user_id, occurred_at FROM activity WHERE file_id = $1 ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) t
     GROUP BY t.user_id`),
  /** The creator of file $1 and the users granted it directly, at most $2. */
  collaboratorIds: new Statement(`
    SELECT c.user_id FROM (
      SELECT creator_id AS user_id FROM files WHERE id = $1
      UNION
      SELECT principal_id FROM file_grants WHERE file_id = $1 AND principal_kind = 'user'
    ) c LIMIT $2`),
  /** Members of $1's departments ($1 included), at most DEPARTMENT_FALLBACK_USERS: two covering indexes. */
  colleagueIds: new Statement(`
    SELECT DISTINCT ud2.user_id
      FROM user_departments ud JOIN user_departments ud2 ON ud2.department_id = ud.department_id
     WHERE ud.user_id = $1
     LIMIT ${DEPARTMENT_FALLBACK_USERS}`),
  /** The files granted to principal ($1 kind, $2 id), with the role rank. */
  principalFiles: new Statement('SELECT file_id, role_rank FROM file_grants WHERE principal_kind = $1 AND principal_id = $2'),
  /** The files $1 created. */
  createdFiles: new Statement('SELECT id FROM files WHERE creator_id = $1'),
} as const;

/** The statements that take a list of ids, which the dialects bind differently. */
export interface IdListStatements {
  /** Whole user rows. */
  users: Statement;
  /** What a user's tier is computed from, with team and active. */
  userMatchRows: Statement;
  /** What a file's tier and order are computed from, with its status. */
  fileMatchRows: Statement;
  /** Whole file rows with `has_content`. */
  files: Statement;
}

const byDialect = new Map<string, IdListStatements>();

export function idListStatements(dialect: DialectSql): IdListStatements {
  let statements = byDialect.get(dialect.name);
  if (!statements) {
    const ids = dialect.idList('$1');
    statements = {
      users: new Statement(`SELECT * FROM users WHERE id IN ${ids}`),
      userMatchRows: new Statement(`SELECT id, name, email, name_pinyin, name_initials, team_id, active FROM users WHERE id IN ${ids}`),
      fileMatchRows: new Statement(`SELECT id, name, name_pinyin, name_initials, updated_at, status FROM files WHERE id IN ${ids}`),
      files: new Statement(`
        SELECT f.*, CASE WHEN c.file_id IS NULL THEN 0 ELSE 1 END AS has_content
          FROM files f LEFT JOIN file_contents c ON c.file_id = f.id
         WHERE f.id IN ${ids}`),
    };
    byDialect.set(dialect.name, statements);
  }
  return statements;
}
