import { roleFromRank } from '../../directory/permissions.js';
import type { Department, Grant, PrincipalKind, Team } from '../../directory/types.js';
import type { DirectoryRecordReader, DirectorySection, StoredFile, StoredRecords, StoredUser } from '../../directory-changes/directory-store.js';
import { chunks } from '../directory-reads/directory-lookups.js';
import { toFile, toUser } from '../directory-reads/directory-rows.js';
import { grantsWithPrincipals } from '../directory-reads/file-grant-names.js';
import type { Selectable } from 'kysely';
import type { Database, Db } from '../schema/schema.js';
import { IdListStatement } from '../statements/id-list-statement.js';

/** The page size when none is asked for: export and the diff of a replace read every id, page by page. */
const ALL = 10_000;

/**
 * Stored directory records as the domain's shapes, by id or a page of ids at a time (exports, the
 * management API, the diff of a change). Memberships of departments and grants of principals that no
 * longer exist are left out, so what is read always imports again.
 */
export function storedRecords(db: Db): DirectoryRecordReader {
  return {
    async read<S extends DirectorySection>(section: S, ids: readonly string[], options: { activeOnly?: boolean } = {}) {
      const read = READERS[section] as (db: Db, ids: string[], activeOnly: boolean) => Promise<StoredRecords[S][]>;
      const records: StoredRecords[S][] = [];
      for (const chunk of chunks(ids)) records.push(...(await read(db, chunk, options.activeOnly ?? false)));
      return records;
    },
    async pageIds(section, page) {
      let query = db
        .selectFrom(section)
        .select('id')
        .orderBy('id')
        .limit(page.limit ?? ALL);
      if (page.after !== undefined) query = query.where('id', '>', page.after);
      if (section === 'files' && page.activeOnly) query = query.where('status', '=', 'active');
      return (await query.execute()).map((row) => row.id);
    },
    async storedContentSha256(fileId) {
      const row = await db.selectFrom('file_contents').select('sha256').where('file_id', '=', fileId).executeTakeFirst();
      return row?.sha256;
    },
    storedContentCount: () => countRows(db, 'file_contents'),
  };
}

const READERS: { [S in DirectorySection]: (db: Db, ids: string[], activeOnly: boolean) => Promise<StoredRecords[S][]> } = {
  teams: readTeams,
  departments: readDepartments,
  users: readUsers,
  files: readFiles,
};

async function readTeams(db: Db, ids: string[]): Promise<Team[]> {
  return db.selectFrom('teams').select(['id', 'name']).where('id', 'in', ids).execute();
}

async function readDepartments(db: Db, ids: string[]): Promise<Department[]> {
  const rows = await db.selectFrom('departments').select(['id', 'name', 'team_id', 'parent_id']).where('id', 'in', ids).execute();
  return rows.map((row) => ({ id: row.id, name: row.name, teamId: row.team_id, parentId: row.parent_id }));
}

/** Every change that names users reads them (the diff): fixed statements. */
const USERS = new IdListStatement('SELECT * FROM users WHERE id IN ($ids)');
const MEMBERSHIPS = new IdListStatement(
  'SELECT ud.user_id, ud.department_id FROM user_departments ud INNER JOIN departments d ON d.id = ud.department_id WHERE ud.user_id IN ($ids)',
);

async function readUsers(db: Db, ids: string[]): Promise<StoredUser[]> {
  const rows = await USERS.run<Selectable<Database['users']>>(db, ids);
  const memberships = await MEMBERSHIPS.run<{ user_id: string; department_id: string }>(db, ids);
  const departmentIds = groupBy(
    memberships,
    (row) => row.user_id,
    (row) => row.department_id,
  );
  return rows.map((row) => ({ ...toUser(row), departmentIds: departmentIds.get(row.id) ?? [], active: Number(row.active) !== 0 }));
}

async function readFiles(db: Db, ids: string[], activeOnly: boolean): Promise<StoredFile[]> {
  let query = db.selectFrom('files').selectAll().where('id', 'in', ids);
  if (activeOnly) query = query.where('status', '=', 'active');
  const rows = await query.execute();
  if (rows.length === 0) return [];
  // Grants of principals that no longer exist are left out.
  const grantRows = await grantsWithPrincipals(db, ids)
    .select(['g.file_id', 'g.principal_kind', 'g.principal_id', 'g.role_rank'])
    .where((eb) => eb.or([eb('u.id', 'is not', null), eb('d.id', 'is not', null), eb('t.id', 'is not', null)]))
    .execute();
  const grants = groupBy(
    grantRows.filter((row) => roleFromRank(row.role_rank) !== null),
    (row) => row.file_id,
    (row): Grant => ({ fileId: row.file_id, principalKind: row.principal_kind as PrincipalKind, principalId: row.principal_id, role: roleFromRank(row.role_rank)! }),
  );
  const sizes = new Map((await db.selectFrom('file_contents').select(['file_id', 'size']).where('file_id', 'in', ids).execute()).map((row) => [row.file_id, Number(row.size)]));
  return rows.map((row) => {
    const { hasStoredContent: _, ...file } = toFile({ ...row, has_content: null });
    return { file, grants: grants.get(row.id) ?? [], contentSize: sizes.get(row.id) ?? null };
  });
}

/** How many rows a table has. */
export async function countRows(db: Db, table: 'teams' | 'file_contents'): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

function groupBy<Row, Value>(rows: readonly Row[], key: (row: Row) => string, value: (row: Row) => Value): Map<string, Value[]> {
  const groups = new Map<string, Value[]>();
  for (const row of rows) {
    const list = groups.get(key(row));
    if (list) list.push(value(row));
    else groups.set(key(row), [value(row)]);
  }
  return groups;
}
