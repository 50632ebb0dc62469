import { createHash } from 'node:crypto';
import { Type, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Role } from '../directory/types.js';
import type { ApplyResult, DirectoryChanges, DirectoryWriteTurn } from './directory-changes.js';
import { directoryRecordsOver } from './directory-records.js';
import type { DirectorySection } from './directory-store.js';
import { schemaProblems, type SchemaError, type SnapshotProblem } from './problems.js';
import type { DirectoryRecord } from './record-form.js';
import { SharingEntrySchema, type SnapshotFileRecord } from './records.js';
import { parsePrincipal } from './reference-facts.js';

/** A refused one-record write; problem paths are relative to the record (`$.name`, `$.principal`). */
export type RecordRefusal = Omit<Extract<ApplyResult, { ok: false }>, 'status'> & { status: 400 | 404 | 409 | 412 };

export interface GrantBody {
  fileId: string;
  principal: string;
  role: Role;
}

/** A file newly shared with one person through a grant (a role changed, or a department or team, is not). */
export interface NewShare {
  fileId: string;
  userId: string;
  role: Role;
  /** Who shared it, as the caller says (`sharedBy`); null: not said. */
  byUserId: string | null;
}

/** Runs in the grant's transaction: what it writes (a notice) commits or rolls back with the grant. */
export type ShareListener = (db: DirectoryWriteTurn['db'], share: NewShare) => Promise<void>;

/** What a write may require of the stored record: that it still is the version the client read (`If-Match`). */
export interface WritePrecondition {
  /** The ETag the client read (a list of them, or `*` for any stored version), from `If-Match`. */
  ifMatch?: string;
}

/** Writes of one record at a time (the management API), each a change through the one validated path. */
export interface RecordChanges {
  /** Creates or replaces the record `id` of a section from `body`; answers whether it was created, and the record as stored. */
  put(section: DirectorySection, id: string, body: unknown, precondition?: WritePrecondition): Promise<{ ok: true; created: boolean; record: DirectoryRecord } | RecordRefusal>;
  /** Removes the record `id` (404 when there is none, 409 when rows still depend on it). */
  remove(section: DirectorySection, id: string, precondition?: WritePrecondition): Promise<{ ok: true } | RecordRefusal>;
  /** Sets one principal's role on a file (`body`: `{ role, sharedBy? }`): the file's sharing with that entry replaced. */
  putGrant(fileId: string, principal: string, body: unknown): Promise<{ ok: true; grant: GrantBody } | RecordRefusal>;
  /** Removes one principal's grant on a file. */
  removeGrant(fileId: string, principal: string): Promise<{ ok: true } | RecordRefusal>;
}

/** A grant's body: the role, and optionally the user who shared (named in the notice the person gets). */
export const GrantBodySchema = Type.Object(
  {
    role: SharingEntrySchema.properties.role,
    sharedBy: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'the user who shared the file: the notice the person gets names them' })),
  },
  { additionalProperties: false },
);
const checkGrantBody = Compile(GrantBodySchema as TSchema);

/**
 * The entity tag of a record as the management API answers it: a digest of its stored form, so any
 * change of what a reader sees (by any writer, on any instance) gives another tag.
 */
export function recordTag(record: DirectoryRecord): string {
  return `"${createHash('sha256').update(JSON.stringify(record)).digest('base64url').slice(0, 27)}"`;
}

/** Whether `ifMatch` (an If-Match header: `*` or a list of tags, weak ones compared weakly) matches the stored record. */
export function tagMatches(ifMatch: string, stored: DirectoryRecord | undefined): boolean {
  if (ifMatch.trim() === '*') return stored !== undefined;
  if (stored === undefined) return false;
  const tag = recordTag(stored);
  return ifMatch.split(',').some((given) => given.trim().replace(/^W\//, '') === tag);
}

/**
 * One-record writes over `changes`, as `source`. Management writes name each record they remove, so the
 * guard against emptying a team (for bulk sources) does not apply to them. Every write that depends on
 * what is stored (a grant changes the file's sharing as stored, an If-Match compares with it) reads it
 * inside the directory's write turn, so a concurrent write is never lost in between.
 */
export function recordChanges(changes: DirectoryChanges, source: string, options: { onShared?: ShareListener } = {}): RecordChanges {
  const applyIn = (turn: DirectoryWriteTurn, change: Parameters<DirectoryChanges['apply']>[0]) => turn.changes.apply(change, { source, allowEmpty: true });

  /** The refusal of a write whose If-Match does not match the stored record (412), if it does not. */
  const preconditionRefusal = async (turn: DirectoryWriteTurn, section: DirectorySection, id: string, precondition: WritePrecondition | undefined) => {
    if (precondition?.ifMatch === undefined) return undefined;
    const stored = await directoryRecordsOver(turn.db).get(section, id);
    if (tagMatches(precondition.ifMatch, stored)) return undefined;
    return refusal(
      412,
      'precondition_failed',
      [{ path: '$', message: 'was changed since it was read (If-Match)' }],
      `${section} ${id} is not the version If-Match names: read it again`,
    );
  };

  /** Reads the file whose sharing a grant route changes, or refuses: the principal's form (400), no such file (404). */
  const grantTarget = async (turn: DirectoryWriteTurn, fileId: string, principal: string, bodyProblems: SnapshotProblem[] = []) => {
    const problems = [...bodyProblems];
    if (!parsePrincipal(principal)) problems.push({ path: '$.principal', message: 'must be user:ID, department:ID or team:ID' });
    if (problems.length > 0) return refusal(400, 'invalid_record', problems);
    const file = (await directoryRecordsOver(turn.db).get('files', fileId)) as SnapshotFileRecord | undefined;
    return file ?? refusal(404, 'not_found', [{ path: '$', message: `no file ${fileId}` }], `no file ${fileId}`);
  };

  return {
    async put(section, id, body, precondition) {
      const { record, problems } = recordWithId(body, id);
      if (problems.length > 0) return refusal(400, 'invalid_record', problems);
      return changes.inTurn(async (turn) => {
        const unmet = await preconditionRefusal(turn, section, id, precondition);
        if (unmet) return unmet;
        const result = await applyIn(turn, { upsert: { [section]: [record] } });
        if (!result.ok) return relative(result, [`$.${section}[0]`]);
        const stored = await directoryRecordsOver(turn.db).get(section, id);
        if (stored === undefined) throw new Error(`${section} ${id} was written but cannot be read back`);
        return { ok: true as const, created: result.diff.created[section].includes(id), record: stored };
      });
    },

    async remove(section, id, precondition) {
      return changes.inTurn(async (turn) => {
        const unmet = await preconditionRefusal(turn, section, id, precondition);
        if (unmet) return unmet;
        const result = await applyIn(turn, { remove: { [section]: [id] } });
        return result.ok ? { ok: true as const } : relative(result, [`$.remove.${section}[0]`]);
      });
    },

    async putGrant(fileId, principal, body) {
      const bodyProblems = checkGrantBody.Check(body) ? [] : schemaProblems('$', checkGrantBody.Errors(body) as Iterable<SchemaError>);
      // A body that is not an object (`null`, a number) is refused by the problems above; no role is read from it.
      const role = (body as { role?: Role } | null)?.role as Role;
      return changes.inTurn(async (turn) => {
        const file = await grantTarget(turn, fileId, principal, bodyProblems);
        if ('ok' in file) return file;
        const before = file.sharing ?? [];
        const sharing = [...before.filter((entry) => entry.principal !== principal), { principal, role }];
        const result = await applyIn(turn, { upsert: { files: [{ ...file, sharing }] } });
        if (!result.ok) return relative(result, [`$.files[0].sharing[${sharing.length - 1}]`, '$.files[0]']);
        const person = parsePrincipal(principal);
        if (options.onShared && person?.kind === 'user' && !before.some((entry) => entry.principal === principal)) {
          await options.onShared(turn.db, { fileId, userId: person.id, role, byUserId: (body as { sharedBy?: string }).sharedBy ?? null });
        }
        return { ok: true as const, grant: { fileId, principal, role } };
      });
    },

    async removeGrant(fileId, principal) {
      return changes.inTurn(async (turn) => {
        const file = await grantTarget(turn, fileId, principal);
        if ('ok' in file) return file;
        const sharing = (file.sharing ?? []).filter((entry) => entry.principal !== principal);
        if (sharing.length === (file.sharing ?? []).length) {
          return refusal(404, 'not_found', [{ path: '$.principal', message: `has no grant on file ${fileId}` }], `file ${fileId} has no grant for ${principal}`);
        }
        const result = await applyIn(turn, { upsert: { files: [{ ...file, sharing }] } });
        return result.ok ? { ok: true as const } : relative(result, ['$.files[0]']);
      });
    },
  };
}

/** The body as a record object with the path's id; a body `id` that differs from the path is a problem. */
export function recordWithId(body: unknown, id: string): { record: Record<string, unknown>; problems: SnapshotProblem[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { record: { id }, problems: [{ path: '$', message: 'must be a JSON object' }] };
  }
  const given = (body as Record<string, unknown>).id;
  if (given !== undefined && given !== id) return { record: { id }, problems: [{ path: '$.id', message: `must equal the id in the path (${id})` }] };
  return { record: { ...(body as Record<string, unknown>), id }, problems: [] };
}

function refusal(status: RecordRefusal['status'], code: string, problems: SnapshotProblem[], message?: string): RecordRefusal {
  return { ok: false, status, code, message: message ?? problems.map((problem) => `${problem.path} ${problem.message}`).join('; '), problems };
}

/** The refusal with the record's place in the change (`prefixes`, most specific first) written as `$`. */
function relative(result: RecordRefusal, prefixes: readonly string[]): RecordRefusal {
  const rewrite = (text: string) => prefixes.reduce((out, prefix) => out.replaceAll(prefix, '$'), text);
  return { ...result, message: rewrite(result.message), problems: result.problems.map((problem) => ({ path: rewrite(problem.path), message: problem.message })) };
}
