import { switchedOff, switchedOffKeys } from '../directory/restrictions.js';
import type { Department, Grant, Team } from '../directory/types.js';
import type { FileInput } from '../store/directory-writes/directory-writer.js';
import type { DirectorySection, StoredRecords, StoredUser } from './directory-store.js';
import type { DepartmentRecord, SharingEntry, SnapshotFileRecord, SnapshotFileType, TeamRecord, UserRecord } from './records.js';

/**
 * Stored records in the snapshot's record format: what export writes, what the management API reads back,
 * and what a change's diff compares (two records are the same when their forms are). One function per
 * section, so all three agree. Lists come sorted (memberships by id, sharing by principal), so the same
 * directory always gives the same text.
 *
 * The snapshot form leaves out optional fields at their default (`active` only when false,
 * `departmentIds`, `sharing` and `restrictions` only when they say something). The `complete` form, the
 * management API's, always carries `departmentIds` and `active` of a user and `sharing` and
 * `restrictions` of a file, so a reader sees them without knowing the defaults.
 */
export type RecordForm = 'snapshot' | 'complete';

export type DirectoryRecord = TeamRecord | DepartmentRecord | UserRecord | SnapshotFileRecord;

export function teamRecord(team: Team): TeamRecord {
  return { id: team.id, name: team.name };
}

export function departmentRecord(department: Department): DepartmentRecord {
  return { id: department.id, name: department.name, teamId: department.teamId, parentId: department.parentId };
}

export function userRecord(user: StoredUser, form: RecordForm = 'snapshot'): UserRecord {
  const record: UserRecord = { id: user.id, name: user.name };
  if (user.email !== null) record.email = user.email;
  if (user.avatar !== null) record.avatar = user.avatar;
  if (user.teamId !== null) record.teamId = user.teamId;
  if (user.departmentIds.length > 0 || form === 'complete') record.departmentIds = [...new Set(user.departmentIds)].sort(byText);
  if (user.watermark !== null) record.watermark = user.watermark;
  if (!user.active || form === 'complete') record.active = user.active;
  if (user.locale) record.locale = user.locale;
  if (user.im) record.im = user.im;
  return record;
}

export function fileRecord(entry: { file: FileInput; grants: readonly Grant[] }, form: RecordForm = 'snapshot'): SnapshotFileRecord {
  const { file } = entry;
  const record: SnapshotFileRecord = {
    id: file.id,
    name: file.name,
    type: file.type as SnapshotFileType,
    creatorId: file.creatorId,
    ...(file.teamId === null ? {} : { teamId: file.teamId }),
    createdAt: file.createdAt,
    updatedAt: file.updatedAt,
  };
  if (file.views !== null) record.views = file.views;
  if (entry.grants.length > 0 || form === 'complete') record.sharing = sharingOf(entry.grants);
  const { copy, export: exportable } = file.restrictions;
  const off = switchedOffKeys(file.restrictions);
  if (!copy || !exportable || off.length > 0 || form === 'complete') record.restrictions = { copy, export: exportable, ...switchedOff(off) };
  if (file.anonymous === 'view') record.anonymous = 'view';
  if (file.ext !== null) record.ext = file.ext;
  if (file.downloadUrl !== null) record.downloadUrl = file.downloadUrl;
  if (file.fullUrl !== null) record.fullUrl = file.fullUrl;
  return record;
}

/** The record of a stored row of any section. */
export function recordOf<S extends DirectorySection>(section: S, stored: StoredRecords[S], form: RecordForm = 'snapshot'): DirectoryRecord {
  switch (section) {
    case 'teams':
      return teamRecord(stored as Team);
    case 'departments':
      return departmentRecord(stored as Department);
    case 'users':
      return userRecord(stored as StoredUser, form);
    default:
      return fileRecord(stored as StoredRecords['files'], form);
  }
}

/** The id of a stored record of any section. */
export function storedIdOf(section: DirectorySection, stored: StoredRecords[DirectorySection]): string {
  return section === 'files' ? (stored as StoredRecords['files']).file.id : (stored as { id: string }).id;
}

function sharingOf(grants: readonly Grant[]): SharingEntry[] {
  return grants.map((grant) => ({ principal: `${grant.principalKind}:${grant.principalId}`, role: grant.role })).sort((a, b) => byText(a.principal, b.principal));
}

/** Code-unit order: the same in every locale and on both stores. */
function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
