import type { DialectSql } from '../dialect/dialect-sql.js';

/** Characters of the lower-cased e-mail that `users.email_key` holds, as migration 200 made it. */
const EMAIL_KEY_LENGTH = 191;

/** MySQL: an id list as one JSON array parameter, read as rows by JSON_TABLE (MariaDB 10.6+, MySQL 8). */
export const mysqlSql: DialectSql = {
  idList: (placeholder) => `(SELECT id FROM JSON_TABLE(${placeholder}, '$[*]' COLUMNS (id VARCHAR(255) PATH '$')) AS ids)`,
  idListValue: (ids) => JSON.stringify(ids),
  // MariaDB indexes no expression: `email_key` is a generated column of the e-mail's first characters,
  // lower-cased (migration 200); the index finds the candidates, the full comparison decides.
  emailIs: (placeholder) => `email_key = LEFT(${placeholder}, ${EMAIL_KEY_LENGTH}) AND lower(email) = ${placeholder}`,
  joinedLines: (expression) => `GROUP_CONCAT(CONCAT(${expression}, '\\t') SEPARATOR '\\n')`,
};
