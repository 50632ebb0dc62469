import type { AccessFacts, AccessFactsSource } from '../../directory/access-explanation.js';
import { namedGrants } from './file-grant-names.js';
import { restrictionsOfRow } from './directory-rows.js';
import type { Db } from '../schema/schema.js';

/**
 * The facts of an access explanation from the store's directory tables: the file and its grants (with
 * the principals' names), the user, their team, and each of their departments with its chain upwards
 * from the department closure.
 */
export function sqlAccessFacts(db: Db): AccessFactsSource {
  return {
    async accessFacts(fileId, userId) {
      const [file, user] = await Promise.all([
        db
          .selectFrom('files as f')
          .leftJoin('users as c', 'c.id', 'f.creator_id')
          .select(['f.id', 'f.name', 'f.creator_id', 'f.status', 'f.restrict_copy', 'f.restrict_export', 'f.restrict_keys', 'c.name as creator_name'])
          .where('f.id', '=', fileId)
          .executeTakeFirst(),
        db
          .selectFrom('users as u')
          .leftJoin('teams as t', 't.id', 'u.team_id')
          .select(['u.id', 'u.name', 'u.team_id', 'u.active', 't.name as team_name'])
          .where('u.id', '=', userId)
          .executeTakeFirst(),
      ]);
      if (!file) return 'file_not_found';
      if (!user) return 'user_not_found';
      const [chains, grants] = await Promise.all([departmentChains(db, userId), namedGrants(db, [fileId])]);
      const facts: AccessFacts = {
        file: {
          id: file.id,
          name: file.name,
          creatorId: file.creator_id,
          creatorName: file.creator_name,
          status: file.status as AccessFacts['file']['status'],
          // Stored as "is restricted" flags; the domain's restrictions say what is allowed.
          restrictions: restrictionsOfRow(file),
        },
        user: { id: user.id, name: user.name, teamId: user.team_id, active: Number(user.active) !== 0 },
        team: user.team_id === null ? null : { id: user.team_id, name: user.team_name ?? user.team_id },
        departments: chains,
        grants: grants.map(({ principalKind, principalId, principalName, role }) => ({ principalKind, principalId, principalName, role })),
      };
      return facts;
    },
  };
}

/** Each department of the user with [itself, parent, …, first level], from the closure table. */
async function departmentChains(db: Db, userId: string): Promise<AccessFacts['departments']> {
  const rows = await db
    .selectFrom('user_departments as ud')
    .innerJoin('department_ancestors as a', 'a.department_id', 'ud.department_id')
    .innerJoin('departments as d', 'd.id', 'a.ancestor_id')
    .select(['ud.department_id as member_of', 'd.id', 'd.name', 'a.depth'])
    .where('ud.user_id', '=', userId)
    .orderBy('ud.department_id')
    .orderBy('a.depth')
    .execute();
  const chains = new Map<string, AccessFacts['departments'][number]>();
  for (const row of rows) {
    const entry = chains.get(row.member_of) ?? { chain: [] };
    entry.chain.push({ id: row.id, name: row.name });
    chains.set(row.member_of, entry);
  }
  return [...chains.values()];
}
