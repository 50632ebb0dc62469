import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { restrictionsOf } from '../directory/restrictions.js';
import { isInterfaceTime } from '../directory/time.js';
import type { Department, Grant, Team, User } from '../directory/types.js';
import type { FileInput } from '../store/directory-writes/directory-writer.js';
import { CONTENT_MANIFEST, ContentManifests, type ContentRecord } from '../snapshot/content-manifest.js';
import { EMPTY_DIRECTORY, type ExistingDirectory } from './existing-directory.js';
import { byRecord, childPath, schemaProblems, withoutBrokenFields, type SchemaError, type SnapshotProblem } from './problems.js';
import { gatherFacts, parsePrincipal, type Indexed } from './reference-facts.js';
import {
  DepartmentRecordSchema,
  FileRecordSchema,
  SECTIONS,
  SnapshotSchema,
  TeamRecordSchema,
  UserRecordSchema,
  type DepartmentRecord,
  type SnapshotFileRecord,
  type TeamRecord,
  type UserRecord,
} from './records.js';

/** A snapshot that passed every rule, in the shapes the directory writers take. */
export interface ValidSnapshot {
  teams: Team[];
  departments: Department[];
  users: Array<User & { departmentIds: string[]; active: boolean }>;
  files: Array<{
    file: FileInput;
    grants: Grant[];
    /** absolute path of the bytes to store, if any */
    contentPath: string | null;
    /** the JSON path of its `contentFile`, and what an export's manifest recorded of the bytes (if it did) */
    content: { at: string; recorded?: ContentRecord } | null;
  }>;
}

export type SnapshotValidation = { ok: true; snapshot: ValidSnapshot } | { ok: false; problems: SnapshotProblem[] };

export interface ValidateOptions {
  /** Rows already in the store that records may point to (upsert); default: nothing exists (replace). */
  existing?: ExistingDirectory;
  /** Directory of the snapshot file, against which `contentFile` paths resolve; without it `contentFile` is refused. */
  baseDir?: string;
  /** The largest `contentFile` (FILE_MAX_SIZE, as for an upload); default: no limit. */
  maxContentBytes?: number;
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

/**
 * Checks a snapshot against every rule of contracts.md and lists every problem with its JSON path.
 * A record may point to another record of the snapshot (in any order) or, on upsert, to a row already
 * in the store (`existing`). Nothing is written; `importSnapshot` writes what passes.
 */
export async function validateSnapshot(input: unknown, options: ValidateOptions = {}): Promise<SnapshotValidation> {
  const existing = options.existing ?? EMPTY_DIRECTORY;
  const manifests = new ContentManifests();
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
    // Shown as an image source by the platform and the console: never javascript:, data: or the like.
    if (record.avatar !== undefined && !HTTP_URL.test(record.avatar)) problem(childPath(path, 'avatar'), 'must be an http(s):// address');
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
    const createdAtValid = record.createdAt !== undefined && isInterfaceTime(record.createdAt);
    if (record.createdAt !== undefined && !createdAtValid) problem(at('createdAt'), TIME_RULE);
    if (record.updatedAt !== undefined && !isInterfaceTime(record.updatedAt)) problem(at('updatedAt'), TIME_RULE);
    else if (createdAtValid && record.updatedAt !== undefined && record.updatedAt < record.createdAt!) {
      problem(at('updatedAt'), `is earlier than createdAt (${record.createdAt})`);
    }
    if (record.views !== undefined && record.views < 0) problem(at('views'), 'must not be negative');
    if (record.ext !== undefined && record.ext.startsWith('.')) problem(at('ext'), `must not start with a dot ("${record.ext.slice(1)}", not "${record.ext}")`);
    if (record.downloadUrl !== undefined && !HTTP_URL.test(record.downloadUrl)) problem(at('downloadUrl'), 'must be an http(s):// address');
    if (record.fullUrl !== undefined && !HTTP_URL.test(record.fullUrl)) problem(at('fullUrl'), 'must be an http(s):// address');

    if (record.type === 'file' && record.downloadUrl === undefined && record.contentFile === undefined && record.id !== undefined && !facts.hasStoredContent(record.id)) {
      problem(at('downloadUrl'), 'is required for a file of type "file" whose bytes collab-host does not store (or give contentFile in a snapshot file)');
    }
    let contentPath: string | null = null;
    let content: ValidSnapshot['files'][number]['content'] = null;
    if (record.contentFile !== undefined) {
      if (record.type !== undefined && record.type !== 'file') problem(at('contentFile'), 'is only for files of type "file"');
      else if (options.baseDir === undefined) problem(at('contentFile'), 'is only accepted in a snapshot file (a path relative to it)');
      else {
        contentPath = resolve(options.baseDir, record.contentFile);
        const checked = checkContentFile(contentPath, record.contentFile, manifests, options.maxContentBytes);
        if (typeof checked === 'string') problem(at('contentFile'), checked);
        else content = { at: at('contentFile'), ...(checked ? { recorded: checked } : {}) };
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
        restrictions: restrictionsOf(complete.restrictions),
        status: 'active',
        ...(complete.anonymous === 'view' ? { anonymous: 'view' as const } : {}),
      },
      grants,
      contentPath,
      content,
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
        active: record.active ?? true,
        locale: record.locale ?? null,
        im: record.im && Object.keys(record.im).length > 0 ? record.im : null,
      })),
      files,
    },
  };
}

/**
 * A `contentFile` as an upload would take it: a file, within the size limit, and (when an export's manifest
 * records it) of the size recorded. Answers what is wrong, or the manifest's record (the bytes' hash is
 * checked as they are read).
 */
function checkContentFile(path: string, given: string, manifests: ContentManifests, maxBytes: number | undefined): ContentRecord | undefined | string {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error('not a file');
    size = stat.size;
  } catch {
    return `names "${given}", which is not a file (looked for ${path})`;
  }
  if (maxBytes !== undefined && size > maxBytes) return `names "${given}", ${size} bytes: larger than FILE_MAX_SIZE (${maxBytes} bytes)`;
  const recorded = manifests.recordOf(path);
  if (typeof recorded === 'string') return `names "${given}": ${recorded}`;
  if (recorded && recorded.size !== size) return `names "${given}", ${size} bytes; ${CONTENT_MANIFEST} beside it records ${recorded.size}`;
  return recorded;
}
