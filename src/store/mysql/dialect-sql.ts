/**
 * MySQL: an id list as one JSON array parameter, read as rows by JSON_TABLE (MariaDB 10.6+, MySQL 8).
 * Mirrors store/postgres/dialect-sql.ts; typed by the dialect interface once it names MySQL.
 */
export const mysqlSql = {
  name: 'mysql' as const,
  idList: (placeholder: string) => `(SELECT id FROM JSON_TABLE(${placeholder}, '$[*]' COLUMNS (id VARCHAR(255) PATH '$')) AS ids)`,
  idListValue: (ids: readonly string[]) => JSON.stringify(ids),
};
