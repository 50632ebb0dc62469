import { roleFromRank } from '../../directory/permissions.js';
import type { PrincipalKind, Role } from '../../directory/types.js';
import type { Db } from '../schema/schema.js';

/** A grant on a file with its principal's name (null when the principal no longer exists). */
export interface NamedGrant {
  fileId: string;
  principalKind: PrincipalKind;
  principalId: string;
  principalName: string | null;
  role: Role;
}

/** The grants on the given files (at most a few hundred ids), strongest first, then by principal. */
export async function namedGrants(db: Db, fileIds: readonly string[]): Promise<NamedGrant[]> {
  if (fileIds.length === 0) return [];
  const rows = await grantsWithPrincipals(db, fileIds)
    .select(['g.file_id', 'g.principal_kind', 'g.principal_id', 'g.role_rank', 'u.name as user_name', 'd.name as department_name', 't.name as team_name'])
    .orderBy('g.role_rank', 'desc')
    .orderBy('g.principal_kind')
    .orderBy('g.principal_id')
    .execute();
  return rows.flatMap((row) => {
    const role = roleFromRank(Number(row.role_rank));
    if (role === null) return [];
    return [
      {
        fileId: row.file_id,
        principalKind: row.principal_kind as PrincipalKind,
        principalId: row.principal_id,
        principalName: row.user_name ?? row.department_name ?? row.team_name ?? null,
        role,
      },
    ];
  });
}

/**
 * The grants on the given files (`g`), each with its principal (`u`, `d` or `t`; all null when it no
 * longer exists). Driven by the file ids: correlated EXISTS per principal kind under an OR made SQLite
 * walk the by-principal index over every grant of a kind (0.5 s for 500 files on the bench company).
 */
export function grantsWithPrincipals(db: Db, fileIds: readonly string[]) {
  return db
    .selectFrom('file_grants as g')
    .leftJoin('users as u', (join) => join.onRef('u.id', '=', 'g.principal_id').on('g.principal_kind', '=', 'user'))
    .leftJoin('departments as d', (join) => join.onRef('d.id', '=', 'g.principal_id').on('g.principal_kind', '=', 'department'))
    .leftJoin('teams as t', (join) => join.onRef('t.id', '=', 'g.principal_id').on('g.principal_kind', '=', 'team'))
    .where('g.file_id', 'in', [...fileIds]);
}
