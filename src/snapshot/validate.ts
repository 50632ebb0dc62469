import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { isInterfaceTime } from '../directory/time.js';
import type { Department, Grant, PrincipalKind, Team, User } from '../directory/types.js';
import type { FileInput } from '../store/directory-writer.js';
import { EMPTY_DIRECTORY, type ExistingDirectory } from './existing-directory.js';
import { childPath, schemaProblems, type SchemaError, type SnapshotProblem } from './problems.js';
import {
  DepartmentRecordSchema,
  FileRecordSchema,
  PRINCIPAL_KINDS,
  SECTIONS,
  SnapshotSchema,
  TeamRecordSchema,
  UserRecordSchema,
  type DepartmentRecord,
  type SectionName,
  type SnapshotFileRecord,
  type TeamRecord,
  type UserRecord,
} from './records.js';

/** A snapshot that passed every rule, in the shapes the directory writers take. */
export interface ValidSnapshot {
  teams: Team[];
  departments: Department[];
  users: Array<User & { departmentIds: string[] }>;
  files: Array<{ file: FileInput; grants: Grant[]; /** absolute path of the bytes to store, if any */ contentPath: string | null }>;
}

export type SnapshotValidation = { ok: true; snapshot: ValidSnapshot } | { ok: false; problems: SnapshotProblem[] };

export interface ValidateOptions {
  /** Rows already in the store that records may point to (upsert); default: nothing exists (replace). */
  existing?: ExistingDirectory;
  /** Directory of the snapshot file, against which `contentFile` paths resolve; without it `contentFile` is refused. */
  baseDir?: string;
}

/** Department ids of this form name a team's root in the interface (`TEAM_{teamId}`), so none may take it. */
const ROOT_PREFIX = 'TEAM_';
const HTTP_URL = /^https?:\/\/[^\s/]+/i;
const TIME_RULE = 'must be a UTC time written YYYY-MM-DDThh:mm:ssZ (no milliseconds, no offset)';

const checkers = {
  teams: Compile(TeamRecordSchema as TSchema),
  departments: Compile(DepartmentRecordSchema as TSchema),
  users: Compile(UserRecordSchema as TSchema),
  files: Compile(FileRecordSchema as TSchema),
};
const checkSnapshot = Compile(SnapshotSchema as TSchema);

interface Indexed<T> {
  record: T;
  path: string;
}

/**
 * Checks a snapshot against every rule of contracts.md and lists every problem with its JSON path.
 * A record may point to another record of the snapshot (in any order) or, on upsert, to a row already
 * in the store (`existing`). Nothing is written; `importSnapshot` writes what passes.
 */
export async function validateSnapshot(input: unknown, options: ValidateOptions = {}): Promise<SnapshotValidation> {
  const existing = options.existing ?? EMPTY_DIRECTORY;
  const problems: SnapshotProblem[] = [];
  const problem = (path: string, message: string) => problems.push({ path, message });

  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, problems: [{ path: '$', message: 'must be a JSON object with teams, departments, users and files' }] };
  }
  if (!checkSnapshot.Check(input)) problems.push(...schemaProblems('$', checkSnapshot.Errors(input) as Iterable<SchemaError>));
  const sections = input as Record<string, unknown>;

  // Shape of each record; ids of every record that has one, valid or not, so a broken record is
  // reported once and not again by everything that points to it.
  const declared = { teams: new Set<string>(), departments: new Set<string>(), users: new Set<string>(), files: new Set<string>() };
  const valid = {
    teams: [] as Indexed<TeamRecord>[],
    departments: [] as Indexed<DepartmentRecord>[],
    users: [] as Indexed<UserRecord>[],
    files: [] as Indexed<SnapshotFileRecord>[],
  };
  const partial = {
    teams: [] as Indexed<Partial<TeamRecord>>[],
    departments: [] as Indexed<Partial<DepartmentRecord>>[],
    users: [] as Indexed<Partial<UserRecord>>[],
    files: [] as Indexed<Partial<SnapshotFileRecord>>[],
  };
  for (const section of SECTIONS) {
    const records = sections[section];
    if (!Array.isArray(records)) continue;
    const firstPathOf = new Map<string, string>();
    records.forEach((record: unknown, index) => {
      const path = childPath(childPath('$', section), index);
      const id = typeof record === 'object' && record !== null ? (record as { id?: unknown }).id : undefined;
      if (typeof id === 'string' && id !== '') {
        const first = firstPathOf.get(id);
        if (first !== undefined) {
          problem(childPath(path, 'id'), `duplicates the id of ${first}`);
          return;
        }
        firstPathOf.set(id, path);
        declared[section].add(id);
      }
      const checker = checkers[section];
      if (checker.Check(record)) {
        (valid[section] as Indexed<unknown>[]).push({ record, path });
        return;
      }
      const errors = [...checker.Errors(record)] as SchemaError[];
      problems.push(...schemaProblems(path, errors));
      // The rules between records still run on the fields that are well formed, so one pass lists
      // every problem; a record without a usable id is left out of them.
      const usable = withoutBrokenFields(record, errors);
      if (usable !== undefined) (partial[section] as Indexed<unknown>[]).push({ record: usable, path });
    });
  }

  // Structurally valid records and the usable part of broken ones go through the same rules.
  const checked = {
    departments: [...valid.departments, ...partial.departments] as Indexed<Partial<DepartmentRecord>>[],
    users: [...valid.users, ...partial.users] as Indexed<Partial<UserRecord>>[],
    files: [...valid.files, ...partial.files] as Indexed<Partial<SnapshotFileRecord>>[],
  };
  const facts = await gatherFacts(checked, declared, existing);

  for (const { record, path } of checked.departments) {
    const { id, teamId } = record;
    if (id === undefined) continue;
    if (id.startsWith(ROOT_PREFIX)) problem(childPath(path, 'id'), `must not start with ${ROOT_PREFIX} (the interface's name of a team root)`);
    if (teamId !== undefined && !facts.teamExists(teamId)) problem(childPath(path, 'teamId'), `names unknown team "${teamId}"`);
    const parentId = record.parentId ?? null;
    if (parentId === null) continue;
    const parentPath = childPath(path, 'parentId');
    const parent = facts.department(parentId);
    if (parentId === id) {
      problem(parentPath, 'is the department itself');
    } else if (parent === 'invalid') {
      continue;
    } else if (parent === undefined) {
      problem(parentPath, `names unknown department "${parentId}"`);
    } else if (teamId !== undefined && parent.teamId !== teamId) {
      problem(parentPath, `names department "${parentId}" of team "${parent.teamId}", not of this department's team "${teamId}"`);
    } else {
      const cycle = facts.cycleThrough(id);
      if (cycle) problem(parentPath, `makes a cycle: ${cycle.join(' -> ')}`);
    }
  }

  for (const { record, path } of checked.users) {
    const teamId = record.teamId ?? null;
    if (teamId !== null && !facts.teamExists(teamId)) problem(childPath(path, 'teamId'), `names unknown team "${teamId}"`);
    (record.departmentIds ?? []).forEach((departmentId, index) => {
      if (departmentId === undefined) return; // broken entry, reported
      const departmentPath = childPath(childPath(path, 'departmentIds'), index);
      const department = facts.department(departmentId);
      if (department === 'invalid') return;
      if (department === undefined) problem(departmentPath, `names unknown department "${departmentId}"`);
      else if (teamId === null) problem(departmentPath, `names a department of team "${department.teamId}" but the user has no teamId`);
      else if (department.teamId !== teamId) problem(departmentPath, `names department "${departmentId}" of team "${department.teamId}", not the user's team "${teamId}"`);
    });
  }

  const files: ValidSnapshot['files'] = [];
  for (const { record, path } of checked.files) {
    const at = (field: string) => childPath(path, field);
    const creator = record.creatorId === undefined ? 'invalid' : facts.user(record.creatorId);
    if (creator === undefined) problem(at('creatorId'), `names unknown user "${record.creatorId}"`);
    if (record.teamId !== undefined && !facts.teamExists(record.teamId)) problem(at('teamId'), `names unknown team "${record.teamId}"`);
    if (record.createdAt !== undefined && !isInterfaceTime(record.createdAt)) problem(at('createdAt'), TIME_RULE);
    if (record.updatedAt !== undefined && !isInterfaceTime(record.updatedAt)) problem(at('updatedAt'), TIME_RULE);
    if (record.views !== undefined && record.views < 0) problem(at('views'), 'must not be negative');
    if (record.ext !== undefined && record.ext.startsWith('.')) problem(at('ext'), `must not start with a dot ("${record.ext.slice(1)}", not "${record.ext}")`);
    if (record.downloadUrl !== undefined && !HTTP_URL.test(record.downloadUrl)) problem(at('downloadUrl'), 'must be an http(s):// address');
    if (record.fullUrl !== undefined && !HTTP_URL.test(record.fullUrl)) problem(at('fullUrl'), 'must be an http(s):// address');

    let contentPath: string | null = null;
    if (record.contentFile !== undefined) {
      if (record.type !== undefined && record.type !== 'file') problem(at('contentFile'), 'is only for files of type "file"');
      else if (options.baseDir === undefined) problem(at('contentFile'), 'is only accepted in a snapshot file (a path relative to it)');
      else {
        contentPath = resolve(options.baseDir, record.contentFile);
        if (!isReadableFile(contentPath)) problem(at('contentFile'), `names "${record.contentFile}", which is not a file (looked for ${contentPath})`);
      }
    }

    const grants: Grant[] = [];
    const seenPrincipals = new Map<string, number>();
    (record.sharing ?? []).forEach((entry, index) => {
      if (entry?.principal === undefined) return; // broken entry, reported
      const principalPath = childPath(childPath(childPath(path, 'sharing'), index), 'principal');
      const parsed = parsePrincipal(entry.principal);
      if (!parsed) {
        problem(principalPath, 'must be user:ID, department:ID or team:ID');
        return;
      }
      const earlier = seenPrincipals.get(entry.principal);
      if (earlier !== undefined) {
        problem(principalPath, `repeats the principal of sharing[${earlier}]`);
        return;
      }
      seenPrincipals.set(entry.principal, index);
      if (!facts.principalExists(parsed.kind, parsed.id)) problem(principalPath, `names unknown ${parsed.kind} "${parsed.id}"`);
      if (record.id !== undefined && entry.role !== undefined) grants.push({ fileId: record.id, principalKind: parsed.kind, principalId: parsed.id, role: entry.role });
    });

    if (problems.length > 0) continue; // the result is not used; skip building it
    const complete = record as SnapshotFileRecord;
    const teamId = complete.teamId ?? (creator !== undefined && creator !== 'invalid' ? creator.teamId : null);
    files.push({
      file: {
        id: complete.id,
        name: complete.name,
        type: complete.type,
        creatorId: complete.creatorId,
        teamId,
        createdAt: complete.createdAt,
        updatedAt: complete.updatedAt,
        views: complete.views ?? null,
        ext: complete.ext ?? null,
        downloadUrl: complete.downloadUrl ?? null,
        fullUrl: complete.fullUrl ?? null,
        restrictions: { copy: complete.restrictions?.copy ?? true, export: complete.restrictions?.export ?? true },
        status: 'active',
      },
      grants,
      contentPath,
    });
  }

  if (problems.length > 0) return { ok: false, problems: byRecord(problems) };
  return {
    ok: true,
    snapshot: {
      teams: valid.teams.map(({ record }) => ({ id: record.id, name: record.name })),
      departments: valid.departments.map(({ record }) => ({ id: record.id, name: record.name, teamId: record.teamId, parentId: record.parentId ?? null })),
      users: valid.users.map(({ record }) => ({
        id: record.id,
        name: record.name,
        email: record.email ?? null,
        avatar: record.avatar ?? null,
        teamId: record.teamId ?? null,
        watermark: record.watermark ?? null,
        departmentIds: [...new Set(record.departmentIds ?? [])],
      })),
      files,
    },
  };
}

/**
 * The fields of a structurally broken record that are well formed, or undefined when it has no usable
 * id. A broken entry of `sharing` or `departmentIds` becomes a hole (`undefined`), so indexes stay true.
 */
function withoutBrokenFields(record: unknown, errors: readonly SchemaError[]): Record<string, unknown> | undefined {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const usable: Record<string, unknown> = { ...(record as Record<string, unknown>) };
  const brokenEntries = new Map<string, Set<number>>();
  for (const error of errors) {
    const [field, index] = error.instancePath.split('/').slice(1);
    if (field === undefined) {
      if (error.keyword === 'additionalProperties') for (const name of (error.params.additionalProperties as string[] | undefined) ?? []) delete usable[name];
      continue;
    }
    if ((field === 'sharing' || field === 'departmentIds') && index !== undefined && /^\d+$/.test(index) && Array.isArray(usable[field])) {
      const set = brokenEntries.get(field) ?? new Set<number>();
      set.add(Number(index));
      brokenEntries.set(field, set);
    } else {
      delete usable[field];
    }
  }
  for (const [field, indexes] of brokenEntries) {
    const list = usable[field];
    if (Array.isArray(list)) usable[field] = list.map((entry: unknown, i) => (indexes.has(i) ? undefined : entry));
  }
  return typeof usable.id === 'string' && usable.id !== '' ? usable : undefined;
}

/** Problems ordered by section and record (stable within a record), the order a reader fixes them in. */
function byRecord(problems: SnapshotProblem[]): SnapshotProblem[] {
  const key = (path: string): [number, number] => {
    const match = /^\$\.(\w+)\[(\d+)\]/.exec(path);
    if (!match) return [-1, 0];
    return [SECTIONS.indexOf(match[1] as SectionName), Number(match[2])];
  };
  return problems
    .map((problem, order) => ({ problem, order, key: key(problem.path) }))
    .sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.order - b.order)
    .map(({ problem }) => problem);
}

function parsePrincipal(principal: string): { kind: PrincipalKind; id: string } | undefined {
  const colon = principal.indexOf(':');
  if (colon < 0) return undefined;
  const kind = principal.slice(0, colon);
  const id = principal.slice(colon + 1);
  if (id === '' || !(PRINCIPAL_KINDS as readonly string[]).includes(kind)) return undefined;
  return { kind: kind as PrincipalKind, id };
}

function isReadableFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

type DepartmentFact = { teamId: string; parentId: string | null } | 'invalid' | undefined;
type UserFact = { teamId: string | null } | 'invalid' | undefined;

/**
 * What the rules ask about ids: the snapshot's own records first (they win over the store on upsert),
 * then the store, asked once per kind for every id the snapshot does not declare. `invalid` marks an
 * id whose record is declared but broken (already reported).
 */
async function gatherFacts(
  valid: { departments: Indexed<Partial<DepartmentRecord>>[]; users: Indexed<Partial<UserRecord>>[]; files: Indexed<Partial<SnapshotFileRecord>>[] },
  declared: Record<SectionName, Set<string>>,
  existing: ExistingDirectory,
) {
  const departments = new Map<string, { teamId: string; parentId: string | null }>();
  for (const { record } of valid.departments) {
    if (record.id !== undefined && record.teamId !== undefined) departments.set(record.id, { teamId: record.teamId, parentId: record.parentId ?? null });
  }
  const users = new Map<string, { teamId: string | null }>();
  for (const { record } of valid.users) if (record.id !== undefined) users.set(record.id, { teamId: record.teamId ?? null });

  const wanted = { teams: new Set<string>(), departments: new Set<string>(), users: new Set<string>() };
  const want = (kind: keyof typeof wanted, id: string | null | undefined) => {
    if (id != null && !declared[kind].has(id)) wanted[kind].add(id);
  };
  for (const { record } of valid.departments) {
    want('teams', record.teamId);
    want('departments', record.parentId);
  }
  for (const { record } of valid.users) {
    want('teams', record.teamId);
    for (const id of record.departmentIds ?? []) want('departments', id);
  }
  for (const { record } of valid.files) {
    want('users', record.creatorId);
    want('teams', record.teamId);
    for (const entry of record.sharing ?? []) {
      if (entry?.principal === undefined) continue;
      const parsed = parsePrincipal(entry.principal);
      if (parsed) want(parsed.kind === 'user' ? 'users' : parsed.kind === 'team' ? 'teams' : 'departments', parsed.id);
    }
  }

  const existingTeams = wanted.teams.size > 0 ? await existing.teams([...wanted.teams]) : new Set<string>();
  for (const [id, user] of wanted.users.size > 0 ? await existing.users([...wanted.users]) : []) users.set(id, user);
  // Stored departments, then their stored ancestors, round by round: the cycle walk needs whole chains.
  let ask = [...wanted.departments];
  while (ask.length > 0) {
    const found = await existing.departments(ask);
    ask = [];
    for (const [id, department] of found) {
      departments.set(id, department);
      const parentId = department.parentId;
      if (parentId !== null && !departments.has(parentId) && !declared.departments.has(parentId)) ask.push(parentId);
    }
    ask = [...new Set(ask)].filter((id) => !departments.has(id));
  }

  const acyclic = new Set<string>();
  return {
    teamExists: (id: string) => declared.teams.has(id) || existingTeams.has(id),
    department(id: string): DepartmentFact {
      return departments.get(id) ?? (declared.departments.has(id) ? 'invalid' : undefined);
    },
    user(id: string): UserFact {
      return users.get(id) ?? (declared.users.has(id) ? 'invalid' : undefined);
    },
    principalExists(kind: PrincipalKind, id: string): boolean {
      if (kind === 'team') return declared.teams.has(id) || existingTeams.has(id);
      if (kind === 'department') return declared.departments.has(id) || departments.has(id);
      return declared.users.has(id) || users.has(id);
    },
    /** The cycle the department's parent chain runs into and which contains it, as ids; undefined when none. */
    cycleThrough(id: string): string[] | undefined {
      const chain: string[] = [];
      const onChain = new Set<string>();
      let current: string | null | undefined = id;
      while (current != null && !acyclic.has(current) && !onChain.has(current)) {
        chain.push(current);
        onChain.add(current);
        current = departments.get(current)?.parentId;
      }
      if (current != null && onChain.has(current)) {
        const start = chain.indexOf(current);
        if (start === 0) return [...chain, id];
        return undefined; // the chain runs into a cycle this department is not part of: reported at its members
      }
      for (const member of chain) acyclic.add(member);
      return undefined;
    },
  };
}
