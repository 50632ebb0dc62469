import { sql, type RawBuilder } from 'kysely';

/**
 * The rows (kind, id) of a viewer's principals: themself, their team, and each of their departments with
 * all its ancestors. A grant to any of them reaches the viewer (contracts.md's permission model).
 */
export function principalsSql(userId: string): RawBuilder<unknown> {
  return sql`
    SELECT 'user', CAST(${userId} AS TEXT)
    UNION ALL
    SELECT 'team', team_id FROM users WHERE id = ${userId} AND team_id IS NOT NULL
    UNION ALL
    SELECT 'department', a.ancestor_id
      FROM user_departments ud JOIN department_ancestors a ON a.department_id = ud.department_id
     WHERE ud.user_id = ${userId}`;
}
