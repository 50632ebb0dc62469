import { nameKeys } from '../../directory/search-keys.js';
import { roleRank } from '../../directory/permissions.js';
import { switchedOffKeys } from '../../directory/restrictions.js';
import type { Department, FileRecord, Grant, Team, User } from '../../directory/types.js';
import { bulkInsertRows, type RowTable } from '../statements/bulk-insert.js';
import { writeInlineContent } from '../files/file-objects.js';
import type { Database, Db } from '../schema/schema.js';
import { IdListStatement } from '../statements/id-list-statement.js';

/** Ids per DELETE … IN (…) statement: well under both dialects' bound-parameter limits. */
const ID_CHUNK = 1_000;

/** Every upsert of users replaces their memberships: a fixed statement. */
const DELETE_MEMBERSHIPS = new IdListStatement('DELETE FROM user_departments WHERE user_id IN ($ids)');

/** Deletes the rows of these users (memberships) or files (grants, stored bytes), a chunk of ids at a time. */
async function deleteIn(db: Db, table: 'user_departments' | 'file_grants' | 'file_contents', ids: readonly string[]): Promise<void> {
  for (let start = 0; start < ids.length; start += ID_CHUNK) {
    const chunk = ids.slice(start, start + ID_CHUNK);
    if (table === 'user_departments') await DELETE_MEMBERSHIPS.run(db, chunk);
    else await db.deleteFrom(table).where('file_id', 'in', chunk).execute();
  }
}

type Row<Table extends keyof Database> = Database[Table];

const TEAMS: RowTable<Row<'teams'>> = { table: 'teams', columns: { id: 'text', name: 'text' }, conflictKey: ['id'] };

export async function upsertTeams(db: Db, teams: readonly Team[]): Promise<void> {
  await bulkInsertRows(
    db,
    TEAMS,
    teams.map((team) => ({ id: team.id, name: team.name })),
  );
}

const DEPARTMENTS: RowTable<Row<'departments'>> = {
  table: 'departments',
  columns: { id: 'text', team_id: 'text', parent_id: 'text', name: 'text', name_pinyin: 'text', name_initials: 'text' },
  conflictKey: ['id'],
};

/** Upserts departments; call rebuildDepartmentClosure afterwards. */
export async function upsertDepartments(db: Db, departments: readonly Department[]): Promise<void> {
  await bulkInsertRows(
    db,
    DEPARTMENTS,
    departments.map((department) => {
      const keys = nameKeys(department.name);
      return { id: department.id, team_id: department.teamId, parent_id: department.parentId, name: department.name, name_pinyin: keys.pinyin, name_initials: keys.initials };
    }),
  );
}

const DEPARTMENT_ANCESTORS: RowTable<Row<'department_ancestors'>> = {
  table: 'department_ancestors',
  columns: { department_id: 'text', ancestor_id: 'text', depth: 'integer' },
};

/**
 * Recomputes the ancestor closure of every department (self at depth 0). The tree is small next to users
 * and files (thousands of rows), so a full rebuild on each department change is cheap and always right.
 */
export async function rebuildDepartmentClosure(db: Db): Promise<void> {
  const departments = await db.selectFrom('departments').select(['id', 'parent_id']).execute();
  const parentOf = new Map(departments.map((d) => [d.id, d.parent_id]));
  const rows: Row<'department_ancestors'>[] = [];
  for (const { id } of departments) {
    let current: string | null | undefined = id;
    let depth = 0;
    const seen = new Set<string>();
    while (current != null && !seen.has(current)) {
      seen.add(current);
      rows.push({ department_id: id, ancestor_id: current, depth });
      current = parentOf.get(current);
      depth += 1;
    }
  }
  await db.deleteFrom('department_ancestors').execute();
  await bulkInsertRows(db, DEPARTMENT_ANCESTORS, rows);
}

type UserRow = Omit<Row<'users'>, 'active'> & { active: number };

const USERS: RowTable<UserRow> = {
  table: 'users',
  columns: {
    id: 'text',
    name: 'text',
    email: 'text',
    avatar: 'text',
    team_id: 'text',
    watermark: 'text',
    name_pinyin: 'text',
    name_initials: 'text',
    active: 'integer',
    locale: 'text',
    im: 'text',
  },
  conflictKey: ['id'],
};

/** A plain insert: the rows are new (no conflict clause, so PostgreSQL can COPY them). */
const PLAIN_USERS: RowTable<UserRow> = { table: USERS.table, columns: USERS.columns };

const USER_DEPARTMENTS: RowTable<Row<'user_departments'>> = { table: 'user_departments', columns: { user_id: 'text', department_id: 'text' } };

export interface UpsertOptions {
  /** The store holds none of these rows yet (an import after a clear): skip removing old links. */
  fresh?: boolean;
}

/** Upserts users (absent `active` = active) and replaces their department memberships with `departmentIds`. */
export async function upsertUsers(db: Db, users: readonly (User & { departmentIds: readonly string[] })[], options: UpsertOptions = {}): Promise<void> {
  await bulkInsertRows(
    db,
    options.fresh ? PLAIN_USERS : USERS,
    users.map((user) => {
      const keys = nameKeys(user.name);
      return {
        id: user.id,
        name: user.name,
        email: user.email,
        avatar: user.avatar,
        team_id: user.teamId,
        watermark: user.watermark === null ? null : JSON.stringify(user.watermark),
        name_pinyin: keys.pinyin,
        name_initials: keys.initials,
        active: user.active === false ? 0 : 1,
        locale: user.locale ?? null,
        im: user.im ? JSON.stringify(user.im) : null,
      };
    }),
  );
  if (!options.fresh) {
    await deleteIn(
      db,
      'user_departments',
      users.map((user) => user.id),
    );
  }
  await bulkInsertRows(
    db,
    USER_DEPARTMENTS,
    users.flatMap((user) => user.departmentIds.map((departmentId) => ({ user_id: user.id, department_id: departmentId }))),
  );
}

export type FileInput = Omit<FileRecord, 'hasStoredContent'>;

type FileRow = Omit<Row<'files'>, 'version'>;

/** The `files` row of a file (its search keys computed here, once, on write). */
export function fileRow(file: FileInput): FileRow {
  const keys = nameKeys(file.name);
  return {
    id: file.id,
    name: file.name,
    type: file.type,
    creator_id: file.creatorId,
    team_id: file.teamId,
    created_at: file.createdAt,
    updated_at: file.updatedAt,
    views: file.views,
    ext: file.ext,
    download_url: file.downloadUrl,
    full_url: file.fullUrl,
    restrict_copy: file.restrictions.copy ? 0 : 1,
    restrict_export: file.restrictions.export ? 0 : 1,
    status: file.status,
    anonymous_access: file.anonymous ?? null,
    restrict_keys: restrictedKeysOf(file.restrictions),
    name_pinyin: keys.pinyin,
    name_initials: keys.initials,
  };
}

const FILES: RowTable<FileRow> = {
  table: 'files',
  columns: {
    id: 'text',
    name: 'text',
    type: 'text',
    creator_id: 'text',
    team_id: 'text',
    created_at: 'text',
    updated_at: 'text',
    views: 'integer',
    ext: 'text',
    download_url: 'text',
    full_url: 'text',
    restrict_copy: 'integer',
    restrict_export: 'integer',
    status: 'text',
    anonymous_access: 'text',
    restrict_keys: 'text',
    name_pinyin: 'text',
    name_initials: 'text',
  },
  conflictKey: ['id'],
};

const PLAIN_FILES: RowTable<FileRow> = { table: FILES.table, columns: FILES.columns };

/** Upserts files (metadata only; grants and contents are written separately). */
export async function upsertFiles(db: Db, files: readonly FileInput[], options: UpsertOptions = {}): Promise<void> {
  await bulkInsertRows(db, options.fresh ? PLAIN_FILES : FILES, files.map(fileRow));
}

const FILE_GRANTS: RowTable<Row<'file_grants'>> = {
  table: 'file_grants',
  columns: { file_id: 'text', principal_kind: 'text', principal_id: 'text', role_rank: 'integer' },
};

/** Replaces the grants of each file named in `fileIds` with the given grants. */
export async function replaceGrants(db: Db, fileIds: readonly string[], grants: readonly Grant[]): Promise<void> {
  await deleteIn(db, 'file_grants', fileIds);
  await bulkInsertRows(
    db,
    FILE_GRANTS,
    grants.map((grant) => ({ file_id: grant.fileId, principal_kind: grant.principalKind, principal_id: grant.principalId, role_rank: roleRank(grant.role) })),
  );
}

/** Stores (or replaces) the bytes collab-host serves for a third-party file, in its database row. */
export async function putFileContent(db: Db, fileId: string, contentType: string, content: Buffer): Promise<void> {
  await writeInlineContent(db, fileId, contentType, content);
}

/** Drops the stored bytes of these files (those without any are left as they are). */
export async function deleteContents(db: Db, fileIds: readonly string[]): Promise<void> {
  await deleteIn(db, 'file_contents', fileIds);
}

/** Removes every directory row: teams, departments, users, files, grants and contents. */
export async function clearDirectory(db: Db): Promise<void> {
  for (const table of ['file_grants', 'file_contents', 'files', 'user_departments', 'users', 'department_ancestors', 'departments', 'teams'] as const) {
    await db.deleteFrom(table).execute();
  }
}

/** `files.restrict_keys`: the JSON array of the kit's keys the restrictions switch off, null when none. */
function restrictedKeysOf(restrictions: FileInput['restrictions']): string | null {
  const keys = switchedOffKeys(restrictions);
  return keys.length === 0 ? null : JSON.stringify(keys);
}
