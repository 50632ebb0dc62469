import type { DialectSql } from '../dialect/dialect-sql.js';

/** MySQL: an id list as one JSON array parameter, read as rows by JSON_TABLE (MariaDB 10.6+, MySQL 8). */
export const mysqlSql: DialectSql = {
  idList: (placeholder) => `(SELECT id FROM JSON_TABLE(${placeholder}, '$[*]' COLUMNS (id VARCHAR(255) PATH '$')) AS ids)`,
  idListValue: (ids) => JSON.stringify(ids),
};
