import { RECENT_ACTIVITY_ROWS } from '../../directory/search-port.js';
import type { DialectSql } from '../dialect/dialect-sql.js';
import { Statement } from '../statements/statement.js';

/** The activity that ranks searches in memory (run prepared, src/store/statements/prepared-reads.ts). */
export const ACTIVITY_SQL = {
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
} as const;

/** The statements that take a list of ids, which the dialects bind differently. */
export interface IdListStatements {
  /** Whole user rows. */
  users: Statement;
  /** Whole file rows with `has_content`. */
  files: Statement;
}

const byDialect = new WeakMap<DialectSql, IdListStatements>();

export function idListStatements(dialect: DialectSql): IdListStatements {
  let statements = byDialect.get(dialect);
  if (!statements) {
    const ids = dialect.idList('$1');
    statements = {
      users: new Statement(`SELECT * FROM users WHERE id IN ${ids}`),
      files: new Statement(`
        SELECT f.*, CASE WHEN c.file_id IS NULL THEN 0 ELSE 1 END AS has_content
          FROM files f LEFT JOIN file_contents c ON c.file_id = f.id
         WHERE f.id IN ${ids}`),
    };
    byDialect.set(dialect, statements);
  }
  return statements;
}
