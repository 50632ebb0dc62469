import { Type, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Role } from '../directory/types.js';
import type { ApplyResult, DirectoryChanges } from './directory-changes.js';
import type { DirectoryRecords } from './directory-records.js';
import type { DirectorySection } from './directory-store.js';
import { schemaProblems, type SchemaError, type SnapshotProblem } from './problems.js';
import type { DirectoryRecord } from './record-form.js';
import { SharingEntrySchema, type SnapshotFileRecord } from './records.js';
import { parsePrincipal } from './reference-facts.js';

/** A refused one-record write; problem paths are relative to the record (`$.name`, `$.principal`). */
export type RecordRefusal = Extract<ApplyResult, { ok: false }>;

export interface GrantBody {
  fileId: string;
  principal: string;
  role: Role;
}

/** Writes of one record at a time (the management API), each a change through the one validated path. */
export interface RecordChanges {
  /** Creates or replaces the record `id` of a section from `body`; answers whether it was created, and the record as stored. */
  put(section: DirectorySection, id: string, body: unknown): Promise<{ ok: true; created: boolean; record: DirectoryRecord } | RecordRefusal>;
  /** Removes the record `id` (404 when there is none, 409 when rows still depend on it). */
  remove(section: DirectorySection, id: string): Promise<{ ok: true } | RecordRefusal>;
  /** Sets one principal's role on a file (`body`: `{ role }`): the file's sharing with that entry replaced. */
  putGrant(fileId: string, principal: string, body: unknown): Promise<{ ok: true; grant: GrantBody } | RecordRefusal>;
  /** Removes one principal's grant on a file. */
  removeGrant(fileId: string, principal: string): Promise<{ ok: true } | RecordRefusal>;
}

const checkGrantBody = Compile(Type.Object({ role: SharingEntrySchema.properties.role }, { additionalProperties: false }) as TSchema);

/**
 * One-record writes over `changes`, as `source`. Management writes name each record they remove, so the
 * guard against emptying a team (for bulk sources) does not apply to them.
 */
export function recordChanges(changes: DirectoryChanges, records: DirectoryRecords, source: string): RecordChanges {
  const apply = async (change: Parameters<DirectoryChanges['apply']>[0]) => changes.apply(change, { source, allowEmpty: true });

  /** Reads the file whose sharing a grant route changes, or refuses: the principal's form (400), no such file (404). */
  const grantTarget = async (fileId: string, principal: string, bodyProblems: SnapshotProblem[] = []) => {
    const problems = [...bodyProblems];
    if (!parsePrincipal(principal)) problems.push({ path: '$.principal', message: 'must be user:ID, department:ID or team:ID' });
    if (problems.length > 0) return refusal(400, 'invalid_record', problems);
    const file = (await records.get('files', fileId)) as SnapshotFileRecord | undefined;
    return file ?? refusal(404, 'not_found', [{ path: '$', message: `no file ${fileId}` }], `no file ${fileId}`);
  };

  return {
    async put(section, id, body) {
      const { record, problems } = recordWithId(body, id);
      if (problems.length > 0) return refusal(400, 'invalid_record', problems);
      const result = await apply({ upsert: { [section]: [record] } });
      if (!result.ok) return relative(result, [`$.${section}[0]`]);
      const stored = await records.get(section, id);
      if (stored === undefined) throw new Error(`${section} ${id} was written but cannot be read back`);
      return { ok: true, created: result.diff.created[section].includes(id), record: stored };
    },

    async remove(section, id) {
      const result = await apply({ remove: { [section]: [id] } });
      return result.ok ? { ok: true } : relative(result, [`$.remove.${section}[0]`]);
    },

    async putGrant(fileId, principal, body) {
      const bodyProblems = checkGrantBody.Check(body) ? [] : schemaProblems('$', checkGrantBody.Errors(body) as Iterable<SchemaError>);
      const file = await grantTarget(fileId, principal, bodyProblems);
      if ('ok' in file) return file;
      const role = (body as { role: Role }).role;
      const sharing = [...(file.sharing ?? []).filter((entry) => entry.principal !== principal), { principal, role }];
      const result = await apply({ upsert: { files: [{ ...file, sharing }] } });
      if (!result.ok) return relative(result, [`$.files[0].sharing[${sharing.length - 1}]`, '$.files[0]']);
      return { ok: true, grant: { fileId, principal, role } };
    },

    async removeGrant(fileId, principal) {
      const file = await grantTarget(fileId, principal);
      if ('ok' in file) return file;
      const sharing = (file.sharing ?? []).filter((entry) => entry.principal !== principal);
      if (sharing.length === (file.sharing ?? []).length) {
        return refusal(404, 'not_found', [{ path: '$.principal', message: `has no grant on file ${fileId}` }], `file ${fileId} has no grant for ${principal}`);
      }
      const result = await apply({ upsert: { files: [{ ...file, sharing }] } });
      return result.ok ? { ok: true } : relative(result, ['$.files[0]']);
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
