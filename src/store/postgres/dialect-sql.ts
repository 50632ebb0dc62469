import type { DialectSql } from '../dialect/dialect-sql.js';

/** PostgreSQL: id lists as a text[] parameter. */
export const postgresSql: DialectSql = {
  idList: (placeholder) => `(SELECT unnest(${placeholder}::text[]))`,
  idListValue: (ids) => [...ids],
  emailIs: (placeholder) => `lower(email) = ${placeholder}`,
  joinedLines: (expression) => `string_agg(${expression} || chr(9), chr(10))`,
};
