import type { PrincipalKind } from '../../directory/types.js';
import type { Db } from '../schema/schema.js';

/**
 * Deletes of directory rows (the one write path's removals). A delete that would leave rows pointing at
 * nothing is refused: it answers what still depends on the row, and removes nothing. Each returns
 * `not-found`, `blocked` with the reason, or `deleted`. Run them inside a transaction.
 */
export type RemovalResult = { status: 'deleted' } | { status: 'not-found' } | { status: 'blocked'; reason: string };

const DELETED: RemovalResult = { status: 'deleted' };
const NOT_FOUND: RemovalResult = { status: 'not-found' };

async function count(query: { executeTakeFirstOrThrow(): Promise<{ count: number | string | bigint }> }): Promise<number> {
  return Number((await query.executeTakeFirstOrThrow()).count);
}

async function deleteGrantsTo(db: Db, kind: PrincipalKind, id: string): Promise<void> {
  await db.deleteFrom('file_grants').where('principal_kind', '=', kind).where('principal_id', '=', id).execute();
}

/** A team with departments, members or files is kept (delete or move those first); its grants go with it. */
export async function deleteTeam(db: Db, teamId: string): Promise<RemovalResult> {
  if (!(await db.selectFrom('teams').select('id').where('id', '=', teamId).executeTakeFirst())) return NOT_FOUND;
  const [departments, users, files] = await Promise.all([
    count(
      db
        .selectFrom('departments')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('team_id', '=', teamId),
    ),
    count(
      db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('team_id', '=', teamId),
    ),
    count(
      db
        .selectFrom('files')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('team_id', '=', teamId),
    ),
  ]);
  if (departments + users + files > 0) {
    return { status: 'blocked', reason: `team ${teamId} still has ${departments} departments, ${users} users and ${files} files` };
  }
  await deleteGrantsTo(db, 'team', teamId);
  await db.deleteFrom('teams').where('id', '=', teamId).execute();
  return DELETED;
}

/** A department with sub-departments is kept; its memberships and grants go with it. */
export async function deleteDepartment(db: Db, departmentId: string): Promise<RemovalResult> {
  const department = await db.selectFrom('departments').select(['id', 'team_id']).where('id', '=', departmentId).executeTakeFirst();
  if (!department) return NOT_FOUND;
  const children = await count(
    db
      .selectFrom('departments')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('team_id', '=', department.team_id)
      .where('parent_id', '=', departmentId),
  );
  if (children > 0) return { status: 'blocked', reason: `department ${departmentId} still has ${children} sub-departments` };
  await deleteGrantsTo(db, 'department', departmentId);
  await db.deleteFrom('user_departments').where('department_id', '=', departmentId).execute();
  await db.deleteFrom('departments').where('id', '=', departmentId).execute();
  // The closure rows of this leaf: itself and its ancestors, nothing else refers to it.
  await db.deleteFrom('department_ancestors').where('department_id', '=', departmentId).execute();
  return DELETED;
}

/** A user who created files is kept (the files need their creator); memberships and grants go. */
export async function deleteUser(db: Db, userId: string): Promise<RemovalResult> {
  if (!(await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst())) return NOT_FOUND;
  const created = await count(
    db
      .selectFrom('files')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('creator_id', '=', userId),
  );
  if (created > 0) return { status: 'blocked', reason: `user ${userId} created ${created} files: delete them or change their creator first` };
  await deleteGrantsTo(db, 'user', userId);
  await db.deleteFrom('user_departments').where('user_id', '=', userId).execute();
  await db.deleteFrom('users').where('id', '=', userId).execute();
  return DELETED;
}

/** A file with its grants and stored bytes. */
export async function deleteFile(db: Db, fileId: string): Promise<RemovalResult> {
  if (!(await db.selectFrom('files').select('id').where('id', '=', fileId).executeTakeFirst())) return NOT_FOUND;
  await db.deleteFrom('file_grants').where('file_id', '=', fileId).execute();
  await db.deleteFrom('file_contents').where('file_id', '=', fileId).execute();
  await db.deleteFrom('files').where('id', '=', fileId).execute();
  return DELETED;
}
