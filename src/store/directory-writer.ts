import type { Insertable, Kysely, Transaction } from 'kysely';
import { nameKeys } from '../directory/search-keys.js';
import { roleRank } from '../directory/permissions.js';
import type { Department, FileRecord, Grant, Team, User } from '../directory/types.js';
import type { Database } from './schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Rows per INSERT statement: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK_ROWS = 500;

async function insertChunked<T>(rows: readonly T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
    await insert(rows.slice(start, start + CHUNK_ROWS));
  }
}

export async function upsertTeams(db: Db, teams: readonly Team[]): Promise<void> {
  await insertChunked(teams, (chunk) =>
    db
      .insertInto('teams')
      .values(chunk.map((team) => ({ id: team.id, name: team.name })))
      .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ name: eb.ref('excluded.name') })))
      .execute(),
  );
}

/** Upserts departments; call rebuildDepartmentClosure afterwards for the teams touched. */
export async function upsertDepartments(db: Db, departments: readonly Department[]): Promise<void> {
  await insertChunked(departments, (chunk) =>
    db
      .insertInto('departments')
      .values(
        chunk.map((department) => {
          const keys = nameKeys(department.name);
          return {
            id: department.id,
            team_id: department.teamId,
            parent_id: department.parentId,
            name: department.name,
            name_pinyin: keys.pinyin,
            name_initials: keys.initials,
          };
        }),
      )
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          team_id: eb.ref('excluded.team_id'),
          parent_id: eb.ref('excluded.parent_id'),
          name: eb.ref('excluded.name'),
          name_pinyin: eb.ref('excluded.name_pinyin'),
          name_initials: eb.ref('excluded.name_initials'),
        })),
      )
      .execute(),
  );
}

/**
 * Recomputes the ancestor closure of every department (self at depth 0). The tree is small next to users
 * and files (thousands of rows), so a full rebuild on each department change is cheap and always right.
 */
export async function rebuildDepartmentClosure(db: Db): Promise<void> {
  const departments = await db.selectFrom('departments').select(['id', 'parent_id']).execute();
  const parentOf = new Map(departments.map((d) => [d.id, d.parent_id]));
  const rows: Database['department_ancestors'][] = [];
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
  await insertChunked(rows, (chunk) => db.insertInto('department_ancestors').values(chunk).execute());
}

/** Upserts users and replaces their department memberships with `departmentIds`. */
export async function upsertUsers(db: Db, users: readonly (User & { departmentIds: readonly string[] })[]): Promise<void> {
  await insertChunked(users, async (chunk) => {
    await db
      .insertInto('users')
      .values(
        chunk.map((user) => {
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
          };
        }),
      )
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          email: eb.ref('excluded.email'),
          avatar: eb.ref('excluded.avatar'),
          team_id: eb.ref('excluded.team_id'),
          watermark: eb.ref('excluded.watermark'),
          name_pinyin: eb.ref('excluded.name_pinyin'),
          name_initials: eb.ref('excluded.name_initials'),
        })),
      )
      .execute();
    await db
      .deleteFrom('user_departments')
      .where(
        'user_id',
        'in',
        chunk.map((user) => user.id),
      )
      .execute();
    const memberships = chunk.flatMap((user) => user.departmentIds.map((departmentId) => ({ user_id: user.id, department_id: departmentId })));
    if (memberships.length > 0) await db.insertInto('user_departments').values(memberships).execute();
  });
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

/** Upserts files (metadata only; grants and contents are written separately). */
export async function upsertFiles(db: Db, files: readonly FileInput[]): Promise<void> {
  await insertChunked(files, (chunk) =>
    db
      .insertInto('files')
      .values(chunk.map(fileRow))
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          type: eb.ref('excluded.type'),
          creator_id: eb.ref('excluded.creator_id'),
          team_id: eb.ref('excluded.team_id'),
          created_at: eb.ref('excluded.created_at'),
          updated_at: eb.ref('excluded.updated_at'),
          views: eb.ref('excluded.views'),
          ext: eb.ref('excluded.ext'),
          download_url: eb.ref('excluded.download_url'),
          full_url: eb.ref('excluded.full_url'),
          restrict_copy: eb.ref('excluded.restrict_copy'),
          restrict_export: eb.ref('excluded.restrict_export'),
          status: eb.ref('excluded.status'),
          name_pinyin: eb.ref('excluded.name_pinyin'),
          name_initials: eb.ref('excluded.name_initials'),
        })),
      )
      .execute(),
  );
}

/** Replaces the grants of each file named in `fileIds` with the given grants. */
export async function replaceGrants(db: Db, fileIds: readonly string[], grants: readonly Grant[]): Promise<void> {
  await insertChunked(fileIds, (chunk) => db.deleteFrom('file_grants').where('file_id', 'in', chunk).execute());
  await insertChunked(grants, (chunk) =>
    db
      .insertInto('file_grants')
      .values(
        chunk.map((grant) => ({
          file_id: grant.fileId,
          principal_kind: grant.principalKind,
          principal_id: grant.principalId,
          role_rank: roleRank(grant.role),
        })),
      )
      .execute(),
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
