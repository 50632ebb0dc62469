import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { AppContext } from '../app-context.js';
import type { Grant } from '../directory/types.js';
import { HttpError, notFound } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { storeDirectory } from '../snapshot/existing-directory.js';
import type { SnapshotProblem } from '../snapshot/problems.js';
import { importSnapshot } from '../snapshot/import.js';
import { DepartmentRecordSchema, FileRecordSchema, SharingEntrySchema, TeamRecordSchema, UserRecordSchema } from '../snapshot/records.js';
import { validateSnapshot } from '../snapshot/validate.js';
import { deleteDepartment, deleteFile, deleteGrant, deleteTeam, deleteUser, putGrant, type RemovalResult } from '../store/directory-removals.js';
import { ProblemsErrorSchema, recordWithId, replyWithProblems, validatedBySnapshotRules } from './record-validation.js';

const SECURITY = [{ adminKey: [] }];
type Section = 'teams' | 'departments' | 'users' | 'files';

/** One resource of the directory: its section in the snapshot, path and record schema. */
const RESOURCES: Array<{ section: Section; path: string; param: string; schema: TSchema; label: string; note: string }> = [
  { section: 'teams', path: '/teams', param: 'teamId', schema: TeamRecordSchema, label: 'team', note: '' },
  {
    section: 'departments',
    path: '/departments',
    param: 'departmentId',
    schema: DepartmentRecordSchema,
    label: 'department',
    note: ' (a department with sub-departments cannot be deleted; its memberships and grants go with it)',
  },
  {
    section: 'users',
    path: '/users',
    param: 'userId',
    schema: UserRecordSchema,
    label: 'user',
    note: ' (a user who created files cannot be deleted; memberships and grants go with them)',
  },
  {
    section: 'files',
    path: '/files',
    param: 'fileId',
    schema: FileRecordSchema,
    label: 'file',
    note: ' (PUT replaces the file including its sharing; DELETE removes grants and stored bytes too)',
  },
];

const REMOVERS: Record<Section, (db: Parameters<typeof deleteTeam>[0], id: string) => Promise<RemovalResult>> = {
  teams: deleteTeam,
  departments: deleteDepartment,
  users: deleteUser,
  files: deleteFile,
};

const GrantParams = Type.Object({
  fileId: Type.String({ minLength: 1 }),
  principal: Type.String({ description: 'user:ID, department:ID or team:ID' }),
});
const GrantSchema = Type.Object({ fileId: Type.String(), principal: Type.String(), role: SharingEntrySchema.properties.role });

/**
 * Upsert and delete of the built-in directory (teams, departments, users, files, grants), each record
 * checked by the snapshot's rules (src/snapshot/validate.ts) against the store: a 400 lists every
 * problem, and nothing is written. A PUT is a one-record snapshot import (one transaction).
 * Deletes that would leave rows pointing at nothing are refused with 409 and say what is in the way.
 */
export const directoryManageRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { store } = context;

  for (const resource of RESOURCES) {
    const params = Type.Object({ [resource.param]: Type.String({ minLength: 1, maxLength: 255 }) });
    app.put(
      `${resource.path}/:${resource.param}`,
      {
        validatorCompiler: validatedBySnapshotRules,
        schema: {
          summary: `Create or replace a ${resource.label}, checked by the snapshot rules${resource.note}`,
          security: SECURITY,
          params,
          body: resource.schema,
          response: { 200: resource.schema, 400: ProblemsErrorSchema, ...errorResponses(401, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        const id = (request.params as Record<string, string>)[resource.param] ?? '';
        const { record, problems } = recordWithId(request.body, id);
        if (problems.length > 0) return replyWithProblems(reply, resource.section, problems);
        const result = await importSnapshot(store, { [resource.section]: [record] });
        if (!result.ok) return replyWithProblems(reply, resource.section, result.problems);
        return record;
      },
    );

    app.delete(
      `${resource.path}/:${resource.param}`,
      {
        schema: {
          summary: `Delete a ${resource.label}${resource.note}`,
          security: SECURITY,
          params,
          response: { 204: Type.Null(), ...errorResponses(400, 401, 404, 409) },
        },
      },
      async (request, reply) => {
        const id = (request.params as Record<string, string>)[resource.param] ?? '';
        const result = await store.db.transaction().execute((trx) => REMOVERS[resource.section](trx, id));
        return answerRemoval(reply, result, `no ${resource.label} ${id}`);
      },
    );
  }

  /**
   * Checks one grant with the snapshot rules (principal form, the principal exists, the role) by
   * validating the file with that one sharing entry, and returns it; or answers the problems.
   */
  const checkGrant = async (trx: Parameters<typeof storeDirectory>[0], fileId: string, principal: string, role: unknown): Promise<GrantCheck> => {
    const file = await trx.selectFrom('files').select(['id', 'creator_id']).where('id', '=', fileId).executeTakeFirst();
    if (!file) throw notFound(`no file ${fileId}`, 'not_found');
    const probe = {
      files: [
        { id: file.id, name: 'grant check', type: 'document', creatorId: file.creator_id, createdAt: '2000-01-01T00:00:00Z', updatedAt: '2000-01-01T00:00:00Z', sharing: [{ principal, role }] },
      ],
    };
    const validation = await validateSnapshot(probe, { existing: storeDirectory(trx) });
    if (validation.ok) return { ok: true, grant: validation.snapshot.files[0]!.grants[0]! };
    const prefix = '$.files[0].sharing[0]';
    return { ok: false, problems: validation.problems.filter((problem) => problem.path.startsWith(prefix)).map((problem) => ({ ...problem, path: problem.path.replace(prefix, '$.files[0]') })) };
  };

  app.put(
    '/files/:fileId/grants/:principal',
    {
      validatorCompiler: validatedBySnapshotRules,
      schema: {
        summary: "Give a user, department or team a role on a file (replaces that principal's role)",
        security: SECURITY,
        params: GrantParams,
        body: Type.Object({ role: SharingEntrySchema.properties.role }),
        response: { 200: GrantSchema, 400: ProblemsErrorSchema, ...errorResponses(401, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const { fileId, principal } = request.params as { fileId: string; principal: string };
      const role = typeof request.body === 'object' && request.body !== null ? (request.body as { role?: unknown }).role : undefined;
      const outcome = await store.db.transaction().execute(async (trx) => {
        const checked = await checkGrant(trx, fileId, principal, role);
        if (checked.ok) await putGrant(trx, checked.grant);
        return checked;
      });
      if (!outcome.ok) return replyWithProblems(reply, 'files', outcome.problems);
      return grantBody(outcome.grant, principal);
    },
  );

  app.delete(
    '/files/:fileId/grants/:principal',
    {
      schema: {
        summary: "Remove a principal's grant on a file",
        security: SECURITY,
        params: GrantParams,
        response: { 204: Type.Null(), 400: ProblemsErrorSchema, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const { fileId, principal } = request.params;
      const outcome = await store.db.transaction().execute(async (trx) => {
        const checked = await checkGrant(trx, fileId, principal, 'viewer');
        if (!checked.ok) return checked;
        return { ok: true as const, removal: await deleteGrant(trx, fileId, checked.grant.principalKind, checked.grant.principalId) };
      });
      if (!outcome.ok) return replyWithProblems(reply, 'files', outcome.problems);
      return answerRemoval(reply, outcome.removal, `file ${fileId} has no grant for ${principal}`);
    },
  );
};

type GrantCheck = { ok: true; grant: Grant } | { ok: false; problems: SnapshotProblem[] };

function grantBody(grant: Grant, principal: string) {
  return { fileId: grant.fileId, principal, role: grant.role };
}

function answerRemoval(reply: FastifyReply, result: RemovalResult, notFoundMessage: string) {
  if (result.status === 'not-found') throw notFound(notFoundMessage);
  if (result.status === 'blocked') throw new HttpError(409, 'in_use', result.reason);
  return reply.status(204).send();
}
