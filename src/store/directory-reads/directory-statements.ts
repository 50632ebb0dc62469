import { RECENT_ACTIVITY_ROWS } from '../../directory/search-port.js';
import type { DialectSql } from '../dialect/dialect-sql.js';
import { Statement } from '../statements/statement.js';

/** Each part of the activity that ranks searches in memory: `(id, last_at)` rows for one parameter. */
const ACTIVITY_PARTS = {
  /** (user_id, last_at): the latest mention between the viewer and each user, either way, over recent rows. */
  contacts: (viewer: string) => `
    SELECT x.user_id AS id, MAX(x.occurred_at) AS last_at FROM (
      SELECT * FROM (SELECT related_user_id AS user_id, occurred_at FROM activity
        WHERE user_id = ${viewer} AND related_user_id IS NOT NULL ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) a
      UNION ALL
      SELECT * FROM (SELECT user_id, occurred_at FROM activity
        WHERE related_user_id = ${viewer} ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) b
    ) x GROUP BY x.user_id`,
  /** (file_id, last_at): the files the viewer touched lately. */
  touched: (viewer: string) => `
    SELECT t.file_id AS id, MAX(t.occurred_at) AS last_at
      FROM (SELECT file_id, occurred_at FROM activity WHERE user_id = ${viewer} AND file_id IS NOT NULL
             ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) t
     GROUP BY t.file_id`,
  /** (user_id, last_at): who was active on the file lately. */
  onFile: (file: string) => `
    SELECT t.user_id AS id, MAX(t.occurred_at) AS last_at
      FROM (SELECT user_id, occurred_at FROM activity WHERE file_id = ${file} ORDER BY occurred_at DESC LIMIT ${RECENT_ACTIVITY_ROWS}) t
     GROUP BY t.user_id`,
};

/** The parts of ACTIVITY_SQL.bundle, by the number its rows carry in `part`. */
export const ACTIVITY_BUNDLE_PARTS = ['contacts', 'touched', 'onFile'] as const;

/**
 * The activity that ranks searches in memory (run prepared, src/store/statements/prepared-reads.ts): the
 * three parts in one statement, `(part, id, last_at)` rows, `part` the index in ACTIVITY_BUNDLE_PARTS; $1
 * the viewer whose contacts, $2 the viewer whose touched files, $3 the file whose activity (a null
 * parameter: no rows of that part). One round trip for the kinds of one search instead of three.
 */
export const ACTIVITY_SQL = {
  bundle: new Statement(
    [ACTIVITY_PARTS.contacts('$1'), ACTIVITY_PARTS.touched('$2'), ACTIVITY_PARTS.onFile('$3')]
      .map((part, index) => `SELECT ${index} AS part, p${index}.id, p${index}.last_at FROM (${part}) p${index}`)
      .join('\n    UNION ALL\n'),
  ),
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
