/**
 * The statements of every document open (the token's user; the file with the viewer's strongest grant),
 * written once with `{1}`, `{2}` for the parameters and turned into each driver's placeholders. They run as prepared statements: better-sqlite3 statements on SQLite's read connection,
 * named statements on PostgreSQL (planning the grant join costs more than running it).
 */

/**
 * The strongest role rank granted to the user on the file: the user, the user's team, and every ancestor
 * (self included) of each of the user's departments, as three UNION ALL branches that are each a
 * primary-key probe of file_grants.
 */
const GRANTED_RANK = `
  SELECT MAX(role_rank) FROM (
    SELECT role_rank FROM file_grants
     WHERE file_id = {1} AND principal_kind = 'user' AND principal_id = {2}
    UNION ALL
    SELECT g.role_rank FROM users u
      JOIN file_grants g ON g.file_id = {1} AND g.principal_kind = 'team' AND g.principal_id = u.team_id
     WHERE u.id = {2}
    UNION ALL
    SELECT g.role_rank FROM user_departments ud
      JOIN department_ancestors a ON a.department_id = ud.department_id
      JOIN file_grants g ON g.file_id = {1} AND g.principal_kind = 'department' AND g.principal_id = a.ancestor_id
     WHERE ud.user_id = {2}
  ) granted`;

export const HOT_SQL = {
  /** {1}: the user. */
  userById: 'SELECT * FROM users WHERE id = {1}',
  /** {1}: the file, {2}: the user (also below). */
  grantedRank: `SELECT (${GRANTED_RANK}) AS rank`,
  fileWithGrant: `
    SELECT f.*, CASE WHEN c.file_id IS NULL THEN 0 ELSE 1 END AS has_content, (${GRANTED_RANK}) AS granted_rank
      FROM files f LEFT JOIN file_contents c ON c.file_id = f.id
     WHERE f.id = {1}`,
} as const;

/** A statement in SQLite's anonymous `?` placeholders, with which parameter each `?` takes. */
export interface SqliteStatementText {
  text: string;
  /** For each `?` in order, the index (0-based) of the parameter it binds. */
  order: number[];
}

/** SQLite text (better-sqlite3 binds `?` by position only, so repeated parameters are repeated). */
export function forSqlite(text: string): SqliteStatementText {
  const order: number[] = [];
  const converted = text.replace(/\{(\d)\}/g, (_match, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  return { text: converted, order };
}

/** The values of a `forSqlite` statement, in its placeholders' order. */
export function sqliteValues(statement: SqliteStatementText, parameters: readonly unknown[]): unknown[] {
  return statement.order.map((index) => parameters[index]);
}

/** PostgreSQL's parameters `$1`, `$2`. */
export function forPostgres(text: string): string {
  return text.replace(/\{(\d)\}/g, (_match, n: string) => `$${n}`);
}
