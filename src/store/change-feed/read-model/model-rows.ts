import { sql } from 'kysely';
import type { DirectoryModel } from '../../../directory/read-model/directory-model.js';
import { buildInThread, type ThreadOptions } from '../../../directory/read-model/name-index-threads.js';
import type { HeldGrant } from '../../../directory/read-model/file-grants.js';
import type { FeedChange } from '../directory-change-feed.js';
import type { FileRecord, Restrictions } from '../../../directory/types.js';
import { toFile, toUser, type FileRow } from '../../directory-reads/directory-rows.js';
import type { Db } from '../../schema/schema.js';
import { dialectSql } from '../../dialect/dialect-sql-for.js';

/**
 * Rows per page of the first load: each page's rows die young instead of all of them (a million grants)
 * living until the end of one query, which costs the load a third of its CPU in garbage collection;
 * small enough that a page mostly dies in the young generation (5,000 rather than 20,000: ~140 MB
 * less heap after a 100k-user load).
 */
const ROWS_PAGE = 5_000;
/** Ids per `IN (…)` of a reload: well under both dialects' bound-parameter limits. */
const CHUNK = 500;

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
  'anonymous_access',
  'restrict_keys',
  'name_pinyin',
  'name_initials',
] as const;

/** The pinyin keys the store computed on write (src/directory/search-keys.ts). */
const keysOf = (row: { name_pinyin: string; name_initials: string }) => ({ pinyin: row.name_pinyin, initials: row.name_initials });

const DEPARTMENT_COLUMNS = ['id', 'name', 'team_id', 'parent_id', 'name_pinyin', 'name_initials'] as const;

/**
 * Fills the model with every row of the directory as `trx` sees it, `pageRows` rows per query, and builds
 * its search indexes, so that no first search pays for them (part of the load time). The name indexes
 * need no grant: they are built in a thread of their own while the grants load (`onThreadFailure`: that
 * thread failed, and they were built on this one; `threads`: tests).
 */
export async function loadWholeModel(trx: Db, model: DirectoryModel, pageRows = ROWS_PAGE, onThreadFailure?: (error: unknown) => void, threads?: ThreadOptions): Promise<void> {
  model.beginLoad();
  try {
    await loadRows(trx, model, pageRows);
  } finally {
    model.endLoad();
  }
  const builds = model.search.startBuilds(model.teams.keys());
  // The thread stops when the load is given up (`threads.signal`) or fails here.
  const failed = new AbortController();
  const signal = threads?.signal ? AbortSignal.any([threads.signal, failed.signal]) : failed.signal;
  const built = buildInThread(builds.columns, { ...threads, signal });
  // Awaited below; if the grants fail first, a failure of the build is not left unhandled.
  built.catch(() => undefined);
  // Each grant is put as a write would put it (the people's order the builds read stays derived).
  try {
    await loadAllGrants(trx, model, pageRows);
  } catch (error) {
    failed.abort();
    throw error;
  }
  const { indexes, threadFailure } = await built;
  if (threadFailure !== undefined) onThreadFailure?.(threadFailure);
  builds.finish(indexes);
  model.search.prepare(model.teams.keys());
}

async function loadRows(trx: Db, model: DirectoryModel, pageRows: number): Promise<void> {
  for (const team of await trx.selectFrom('teams').select(['id', 'name']).execute()) model.setTeam(team.id, team);
  for (const row of await trx.selectFrom('departments').select(DEPARTMENT_COLUMNS).execute()) {
    model.setDepartment(row.id, { id: row.id, name: row.name, teamId: row.team_id, parentId: row.parent_id }, keysOf(row));
  }
  /** One copy of each of the few values of some columns (a file's type, status, extension). */
  const words = new Map<string, string>();
  for await (const rows of pagesById(pageRows, (after) => trx.selectFrom('users').selectAll().where('id', '>', after).orderBy('id').limit(pageRows).execute())) {
    for (const row of rows) {
      const user = toUser(row);
      if (user.teamId !== null) user.teamId = model.teams.get(user.teamId)?.id ?? user.teamId;
      model.setUser(row.id, user, keysOf(row));
    }
  }
  for (const [userId, departmentIds] of groupBy(await trx.selectFrom('user_departments').select(['user_id as key', 'department_id as value']).execute())) {
    // The model's own id strings, not each row's copy.
    model.setMemberships(
      model.users.get(userId)?.id ?? userId,
      departmentIds.map((id) => model.departments.get(id)?.id ?? id),
    );
  }
  for (const row of await trx.selectFrom('file_contents').select('file_id').execute()) model.setContent(row.file_id, true);
  for await (const rows of pagesById(pageRows, (after) => trx.selectFrom('files').select(FILE_COLUMNS).where('id', '>', after).orderBy('id').limit(pageRows).execute())) {
    for (const row of rows) model.setFile(row.id, shared(model, words, fileOf(row, model.contents.has(row.id))), keysOf(row));
  }
}

/** Reloads the rows the changes name (each key's rows as `trx` sees them now, absent ones removed). */
export async function reloadChanged(trx: Db, model: DirectoryModel, changes: readonly FeedChange[]): Promise<void> {
  const keys = new Map<string, Set<string>>();
  for (const { subject, key } of changes) {
    const set = keys.get(subject) ?? new Set<string>();
    set.add(key);
    keys.set(subject, set);
  }
  for (const ids of chunks(keys.get('team'))) {
    const found = new Map((await trx.selectFrom('teams').select(['id', 'name']).where('id', 'in', ids).execute()).map((team) => [team.id, team]));
    for (const id of ids) model.setTeam(id, found.get(id));
  }
  for (const ids of chunks(keys.get('department'))) {
    const rows = await trx.selectFrom('departments').select(DEPARTMENT_COLUMNS).where('id', 'in', ids).execute();
    const found = new Map(rows.map((row) => [row.id, row]));
    for (const id of ids) {
      const row = found.get(id);
      model.setDepartment(id, row && { id: row.id, name: row.name, teamId: row.team_id, parentId: row.parent_id }, row && keysOf(row));
    }
  }
  for (const ids of chunks(keys.get('user'))) {
    const found = new Map((await trx.selectFrom('users').selectAll().where('id', 'in', ids).execute()).map((row) => [row.id, row]));
    for (const id of ids) {
      const row = found.get(id);
      model.setUser(id, row && toUser(row), row && keysOf(row));
    }
  }
  for (const ids of chunks(keys.get('membership'))) {
    const rows = await trx.selectFrom('user_departments').select(['user_id as key', 'department_id as value']).where('user_id', 'in', ids).execute();
    const found = groupBy(rows);
    for (const id of ids) model.setMemberships(id, found.get(id) ?? []);
  }
  for (const ids of chunks(keys.get('content'))) {
    const found = new Set((await trx.selectFrom('file_contents').select('file_id').where('file_id', 'in', ids).execute()).map((row) => row.file_id));
    for (const id of ids) model.setContent(id, found.has(id));
  }
  for (const ids of chunks(keys.get('file'))) {
    const found = new Map((await trx.selectFrom('files').select(FILE_COLUMNS).where('id', 'in', ids).execute()).map((row) => [row.id, row]));
    for (const id of ids) {
      const row = found.get(id);
      model.setFile(id, row && fileOf(row, model.contents.has(id)), row && keysOf(row));
    }
  }
  for (const ids of chunks(keys.get('grants'))) await loadGrants(trx, model, ids);
}

async function loadGrants(trx: Db, model: DirectoryModel, fileIds: readonly string[]): Promise<void> {
  const byFile = new Map<string, HeldGrant[]>();
  const rows = await trx.selectFrom('file_grants').select(['file_id', 'principal_kind', 'principal_id', 'role_rank']).where('file_id', 'in', fileIds).execute();
  for (const row of rows) {
    const grant = { principal: model.principalKey(row.principal_kind, row.principal_id), rank: Number(row.role_rank) };
    const list = byFile.get(row.file_id);
    if (list) list.push(grant);
    else byFile.set(row.file_id, [grant]);
  }
  for (const id of fileIds) if (!byFile.has(id)) model.setGrants(id, []);
  for (const [fileId, grants] of byFile) model.setGrants(fileId, grants);
}

/** The pages of a keyset listing by `id` (every id is a non-empty string, so '' is before the first). */
async function* pagesById<Row extends { id: string }>(pageRows: number, page: (after: string) => Promise<Row[]>): AsyncGenerator<Row[]> {
  for (let after = ''; ;) {
    const rows = await page(after);
    if (rows.length > 0) yield rows;
    if (rows.length < pageRows) return;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * Every grant, a page of files at a time in the order of their ids, each file's grants as one line per
 * grant (`rank kind:id`) joined by the database: a fifth of the rows and strings a row per grant costs
 * (the bench company's million grants loaded in half the time). A file whose lines do not check out
 * (`grantsOf`: an id a DBA wrote with a line feed in it, a result cut short) is read again row by row.
 */
async function loadAllGrants(trx: Db, model: DirectoryModel, pageRows: number): Promise<void> {
  const joined = sql.raw(dialectSql(trx).joinedLines(`CONCAT(role_rank, ' ', principal_kind, ':', principal_id)`));
  const misread = new Set<string>();
  for await (const rows of pagesById(pageRows, (after) =>
    trx
      .selectFrom('file_grants')
      .select(['file_id as id', sql<number | string>`count(*)`.as('count'), sql<string>`${joined}`.as('grants')])
      .where('file_id', '>', after)
      .groupBy('file_id')
      .orderBy('file_id')
      .limit(pageRows)
      .execute(),
  )) {
    for (const row of rows) {
      const grants = grantsOf(model, row.grants, Number(row.count));
      if (grants) model.addGrants(row.id, grants.principals, grants.ranks);
      else misread.add(row.id);
    }
  }
  for (const ids of chunks(misread)) await loadGrants(trx, model, ids);
}

/**
 * A file's grants from its joined lines (`rank kind:id` and a tab each), or undefined when they are not
 * `count` such lines: a line feed in an id, a result cut short.
 */
export function grantsOf(model: DirectoryModel, joined: string, count: number): { principals: string[]; ranks: number[] } | undefined {
  const lines = joined.split('\n');
  if (lines.length !== count) return undefined;
  // Arrays of their exact size (a pushed-to array keeps spare room: 40 MB over the bench company's files).
  const principals = new Array<string>(lines.length);
  const ranks = new Array<number>(lines.length);
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    const space = line.indexOf(' ');
    const rank = Number(line.slice(0, space));
    if (space < 1 || !Number.isInteger(rank) || !line.endsWith('\t')) return undefined;
    ranks[index] = rank;
    principals[index] = model.intern(line.slice(space + 1, -1));
  }
  return { principals, ranks };
}

type FileColumns = Pick<FileRow, (typeof FILE_COLUMNS)[number]>;

/** The model's file from its row: `toFile` with the restrictions without fine keys shared. */
function fileOf(row: FileColumns, hasStoredContent: boolean): FileRecord {
  const file = toFile(Object.assign(row, { has_content: hasStoredContent ? 1 : 0 }) as FileRow);
  if (row.restrict_keys === null) file.restrictions = PLAIN_RESTRICTIONS[(file.restrictions.copy ? 2 : 0) + (file.restrictions.export ? 1 : 0)]!;
  return file;
}

/**
 * The file with the strings many files repeat replaced by one shared copy: its creator's and team's
 * ids as the model holds them, its type, status and extension from `words` (hundreds of thousands of
 * files, a few distinct values).
 */
function shared(model: DirectoryModel, words: Map<string, string>, file: FileRecord): FileRecord {
  file.creatorId = model.users.get(file.creatorId)?.id ?? file.creatorId;
  if (file.teamId !== null) file.teamId = model.teams.get(file.teamId)?.id ?? file.teamId;
  file.type = word(words, file.type);
  file.status = word(words, file.status);
  if (file.ext !== null) file.ext = word(words, file.ext);
  return file;
}

function word<T extends string>(words: Map<string, string>, value: T): T {
  const known = words.get(value);
  if (known !== undefined) return known as T;
  words.set(value, value);
  return value;
}

/**
 * The restrictions of a file without fine keys, by `copy * 2 + export`: one frozen object shared by
 * every such file instead of one per file (a model holds hundreds of thousands).
 */
const PLAIN_RESTRICTIONS: readonly Restrictions[] = [0, 1, 2, 3].map((both) => Object.freeze({ copy: both >= 2, export: both % 2 === 1 }));

function groupBy(rows: ReadonlyArray<{ key: string; value: string }>): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const { key, value } of rows) {
    const list = groups.get(key);
    if (list) list.push(value);
    else groups.set(key, [value]);
  }
  return groups;
}

function chunks(ids: Set<string> | undefined): string[][] {
  const list = [...(ids ?? [])];
  const result: string[][] = [];
  for (let start = 0; start < list.length; start += CHUNK) result.push(list.slice(start, start + CHUNK));
  return result;
}
