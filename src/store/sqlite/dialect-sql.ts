import type { DialectSql } from '../dialect/dialect-sql.js';

/** SQLite: id lists as a JSON array read with json_each. */
export const sqliteSql: DialectSql = {
  idList: (placeholder) => `(SELECT value FROM json_each(${placeholder}))`,
  idListValue: (ids) => JSON.stringify(ids),
  emailIs: (placeholder) => `lower(email) = ${placeholder}`,
  joinedLines: (expression) => `group_concat(${expression} || char(9), char(10))`,
};
