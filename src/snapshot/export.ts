import type { Kysely } from 'kysely';
import { roleFromRank } from '../directory/permissions.js';
import type { Database } from '../store/schema.js';
import type { DepartmentRecord, SharingEntry, Snapshot, SnapshotFileRecord, SnapshotFileType, UserRecord } from './records.js';

export interface ExportOptions {
  /**
   * Called once per file whose bytes collab-host stores; writes them somewhere and returns the path to
   * put in `contentFile` (relative to where the snapshot will be written). Without it, `contentFile` is
   * left out: such a snapshot, imported as an upsert, keeps the stored bytes that are already there.
   */
  writeContent?: (file: { id: string; ext: string | null }, bytes: Buffer) => Promise<string>;
}

/**
 * The directory as a snapshot: importing it (with --replace, into an empty store or any) gives the
 * same directory. Optional fields at their default are left out; every list is ordered by id, so two
 * exports of the same directory are the same text. Only `active` files are exported: a document whose
 * platform creation is pending or failed is not part of the directory yet.
 */
export async function exportSnapshot(db: Kysely<Database>, options: ExportOptions = {}): Promise<Required<Snapshot>> {
  const teams = await db.selectFrom('teams').select(['id', 'name']).orderBy('id').execute();

  const departments: DepartmentRecord[] = (
    await db.selectFrom('departments').select(['id', 'name', 'team_id', 'parent_id']).orderBy('id').execute()
  ).map((row) => ({ id: row.id, name: row.name, teamId: row.team_id, parentId: row.parent_id }));

  // Memberships and grants that name a row no longer there are left out, so an export always imports.
  const departmentIds = new Set(departments.map((department) => department.id));
  const membership = new Map<string, string[]>();
  for (const row of await db.selectFrom('user_departments').select(['user_id', 'department_id']).orderBy('user_id').orderBy('department_id').execute()) {
    if (!departmentIds.has(row.department_id)) continue;
    const list = membership.get(row.user_id);
    if (list) list.push(row.department_id);
    else membership.set(row.user_id, [row.department_id]);
  }
  const users: UserRecord[] = (await db.selectFrom('users').select(['id', 'name', 'email', 'avatar', 'team_id', 'watermark']).orderBy('id').execute()).map(
    (row) => {
      const user: UserRecord = { id: row.id, name: row.name };
      if (row.email !== null) user.email = row.email;
      if (row.avatar !== null) user.avatar = row.avatar;
      if (row.team_id !== null) user.teamId = row.team_id;
      const memberOf = membership.get(row.id);
      if (memberOf) user.departmentIds = memberOf;
      if (row.watermark !== null) user.watermark = JSON.parse(row.watermark) as string[];
      return user;
    },
  );

  const principals = {
    team: new Set(teams.map((team) => team.id)),
    department: departmentIds,
    user: new Set(users.map((user) => user.id)),
  } as Record<string, Set<string>>;
  const sharing = new Map<string, SharingEntry[]>();
  const grantRows = await db
    .selectFrom('file_grants')
    .select(['file_id', 'principal_kind', 'principal_id', 'role_rank'])
    .orderBy('file_id')
    .orderBy('principal_kind')
    .orderBy('principal_id')
    .execute();
  for (const row of grantRows) {
    const role = roleFromRank(row.role_rank);
    if (role === null || !principals[row.principal_kind]?.has(row.principal_id)) continue;
    const entry = { principal: `${row.principal_kind}:${row.principal_id}`, role };
    const list = sharing.get(row.file_id);
    if (list) list.push(entry);
    else sharing.set(row.file_id, [entry]);
  }
  const stored = new Set((await db.selectFrom('file_contents').select('file_id').execute()).map((row) => row.file_id));

  const files: SnapshotFileRecord[] = [];
  const fileRows = await db.selectFrom('files').selectAll().where('status', '=', 'active').orderBy('id').execute();
  for (const row of fileRows) {
    const file: SnapshotFileRecord = {
      id: row.id,
      name: row.name,
      type: row.type as SnapshotFileType,
      creatorId: row.creator_id,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
    if (row.team_id !== null) file.teamId = row.team_id;
    if (row.views !== null) file.views = row.views;
    const grants = sharing.get(row.id);
    if (grants) file.sharing = grants;
    if (row.restrict_copy || row.restrict_export) file.restrictions = { copy: !row.restrict_copy, export: !row.restrict_export };
    if (row.ext !== null) file.ext = row.ext;
    if (row.download_url !== null) file.downloadUrl = row.download_url;
    if (row.full_url !== null) file.fullUrl = row.full_url;
    if (options.writeContent && stored.has(row.id)) {
      const content = await db.selectFrom('file_contents').select('content').where('file_id', '=', row.id).executeTakeFirstOrThrow();
      file.contentFile = await options.writeContent({ id: row.id, ext: row.ext }, Buffer.from(content.content));
    }
    files.push(file);
  }
  return { teams, departments, users, files };
}

/** How many files of the store have bytes collab-host serves (an export without contents leaves them out). */
export async function countStoredContents(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('file_contents')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
