import type { Insertable, Kysely, Transaction } from 'kysely';
import { nameKeys } from '../directory/search-keys.js';
import { roleRank } from '../directory/permissions.js';
import type { Department, FileRecord, Grant, Team, User } from '../directory/types.js';
import { bulkInsert, type BulkTable } from './bulk-insert.js';
import type { Database } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Ids per DELETE … IN (…) statement: well under both dialects' bound-parameter limits. */
const ID_CHUNK = 1_000;

async function deleteIn(db: Db, table: 'user_departments' | 'file_grants', column: 'user_id' | 'file_id', ids: readonly string[]): Promise<void> {
  for (let start = 0; start < ids.length; start += ID_CHUNK) {
    const chunk = ids.slice(start, start + ID_CHUNK);
    if (table === 'user_departments') await db.deleteFrom('user_departments').where('user_id', 'in', chunk).execute();
    else await db.deleteFrom('file_grants').where(column === 'file_id' ? 'file_id' : 'principal_id', 'in', chunk).execute();
  }
}

const TEAMS: BulkTable = { table: 'teams', columns: ['id', 'name'], pgTypes: ['text', 'text'], conflictKey: ['id'] };

export async function upsertTeams(db: Db, teams: readonly Team[]): Promise<void> {
  await bulkInsert(
    db,
    TEAMS,
    teams.map((team) => [team.id, team.name]),
  );
}

const DEPARTMENTS: BulkTable = {
  table: 'departments',
  columns: ['id', 'team_id', 'parent_id', 'name', 'name_pinyin', 'name_initials'],
  pgTypes: ['text', 'text', 'text', 'text', 'text', 'text'],
  conflictKey: ['id'],
};

/** Upserts departments; call rebuildDepartmentClosure afterwards. */
export async function upsertDepartments(db: Db, departments: readonly Department[]): Promise<void> {
  await bulkInsert(
    db,
    DEPARTMENTS,
    departments.map((department) => {
      const keys = nameKeys(department.name);
      return [department.id, department.teamId, department.parentId, department.name, keys.pinyin, keys.initials];
    }),
  );
}

const DEPARTMENT_ANCESTORS: BulkTable = {
  table: 'department_ancestors',
  columns: ['department_id', 'ancestor_id', 'depth'],
  pgTypes: ['text', 'text', 'integer'],
};

/**
 * Recomputes the ancestor closure of every department (self at depth 0). The tree is small next to users
 * and files (thousands of rows), so a full rebuild on each department change is cheap and always right.
 */
export async function rebuildDepartmentClosure(db: Db): Promise<void> {
  const departments = await db.selectFrom('departments').select(['id', 'parent_id']).execute();
  const parentOf = new Map(departments.map((d) => [d.id, d.parent_id]));
  const rows: [string, string, number][] = [];
  for (const { id } of departments) {
    let current: string | null | undefined = id;
    let depth = 0;
    const seen = new Set<string>();
    while (current != null && !seen.has(current)) {
      seen.add(current);
      rows.push([id, current, depth]);
      current = parentOf.get(current);
      depth += 1;
    }
  }
  await db.deleteFrom('department_ancestors').execute();
  await bulkInsert(db, DEPARTMENT_ANCESTORS, rows);
}

const USERS: BulkTable = {
  table: 'users',
  columns: ['id', 'name', 'email', 'avatar', 'team_id', 'watermark', 'name_pinyin', 'name_initials'],
  pgTypes: ['text', 'text', 'text', 'text', 'text', 'text', 'text', 'text'],
  conflictKey: ['id'],
};

const USER_DEPARTMENTS: BulkTable = { table: 'user_departments', columns: ['user_id', 'department_id'], pgTypes: ['text', 'text'] };

export interface UpsertOptions {
  /** The store holds none of these rows yet (an import after a clear): skip removing old links. */
  fresh?: boolean;
}

/** Upserts users and replaces their department memberships with `departmentIds`. */
export async function upsertUsers(
  db: Db,
  users: readonly (User & { departmentIds: readonly string[] })[],
  options: UpsertOptions = {},
): Promise<void> {
  await bulkInsert(
    db,
    USERS,
    users.map((user) => {
      const keys = nameKeys(user.name);
      const watermark = user.watermark === null ? null : JSON.stringify(user.watermark);
      return [user.id, user.name, user.email, user.avatar, user.teamId, watermark, keys.pinyin, keys.initials];
    }),
  );
  if (!options.fresh) {
    await deleteIn(
      db,
      'user_departments',
      'user_id',
      users.map((user) => user.id),
    );
  }
  await bulkInsert(
    db,
    USER_DEPARTMENTS,
    users.flatMap((user) => user.departmentIds.map((departmentId) => [user.id, departmentId])),
  );
}

export type FileInput = Omit<FileRecord, 'hasStoredContent'>;

/** The `files` row of a file (its search keys computed here, once, on write). */
export function fileRow(file: FileInput): Insertable<Database['files']> {
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
    name_pinyin: keys.pinyin,
    name_initials: keys.initials,
  };
}

const FILE_COLUMNS = [
  'id',
  'name',
  'type',
  'creator_id',
  'team_id',
  'created_at',
  'updated_at',
  'views',
  'ext',
  'download_url',
  'full_url',
  'restrict_copy',
  'restrict_export',
  'status',
  'name_pinyin',
  'name_initials',
] as const;

const FILES: BulkTable = {
  table: 'files',
  columns: FILE_COLUMNS,
  pgTypes: FILE_COLUMNS.map((column) => (['views', 'restrict_copy', 'restrict_export'].includes(column) ? 'integer' : 'text')),
  conflictKey: ['id'],
};

/** Upserts files (metadata only; grants and contents are written separately). */
export async function upsertFiles(db: Db, files: readonly FileInput[]): Promise<void> {
  await bulkInsert(
    db,
    FILES,
    files.map((file) => {
      const row = fileRow(file) as Record<string, unknown>;
      return FILE_COLUMNS.map((column) => row[column] ?? null);
    }),
  );
}

const FILE_GRANTS: BulkTable = {
  table: 'file_grants',
  columns: ['file_id', 'principal_kind', 'principal_id', 'role_rank'],
  pgTypes: ['text', 'text', 'text', 'integer'],
};

/** Replaces the grants of each file named in `fileIds` with the given grants. */
export async function replaceGrants(db: Db, fileIds: readonly string[], grants: readonly Grant[]): Promise<void> {
  await deleteIn(db, 'file_grants', 'file_id', fileIds);
  await bulkInsert(
    db,
    FILE_GRANTS,
    grants.map((grant) => [grant.fileId, grant.principalKind, grant.principalId, roleRank(grant.role)]),
  );
}

/** Stores (or replaces) the bytes collab-host serves for a third-party file. */
export async function putFileContent(db: Db, fileId: string, contentType: string, content: Buffer): Promise<void> {
  await db
    .insertInto('file_contents')
    .values({ file_id: fileId, content_type: contentType, content, size: content.length })
    .onConflict((oc) =>
      oc.column('file_id').doUpdateSet((eb) => ({
        content_type: eb.ref('excluded.content_type'),
        content: eb.ref('excluded.content'),
        size: eb.ref('excluded.size'),
      })),
    )
    .execute();
}

/** Removes every directory row: teams, departments, users, files, grants and contents. */
export async function clearDirectory(db: Db): Promise<void> {
  for (const table of ['file_grants', 'file_contents', 'files', 'user_departments', 'users', 'department_ancestors', 'departments', 'teams'] as const) {
    await db.deleteFrom(table).execute();
  }
}
