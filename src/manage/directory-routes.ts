import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { notFound } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import type { DirectorySection } from '../directory-changes/directory-store.js';
import { shareNotices } from '../notify/share-notices.js';
import { GrantBodySchema, recordChanges, recordTag, type WritePrecondition } from '../directory-changes/record-changes.js';
import { DepartmentRecordSchema, FileRecordSchema, IdSchema, SharingEntrySchema, TeamRecordSchema, UserRecordSchema } from '../directory-changes/records.js';
import { decodeCursor, encodeCursor, listPageSchema, listQueryProperties } from '../http/paging.js';
import { ProblemsErrorSchema, replyWithRefusal, validatedBySnapshotRules } from './record-validation.js';

const SECURITY = [{ adminKey: [] }];

/** One resource of the directory: its section in the snapshot, path and record schema. */
const RESOURCES: Array<{ section: DirectorySection; path: string; param: string; schema: TSchema; label: string; note: string }> = [
  { section: 'teams', path: '/teams', param: 'teamId', schema: TeamRecordSchema, label: 'team', note: '' },
  {
    section: 'departments',
    path: '/departments',
    param: 'departmentId',
    schema: DepartmentRecordSchema,
    label: 'department',
    note: ' (a department never changes teams; one with sub-departments cannot be deleted; its memberships and grants go with it)',
  },
  {
    section: 'users',
    path: '/users',
    param: 'userId',
    schema: UserRecordSchema,
    label: 'user',
    note: ' (`active: false` deactivates; a user who created files cannot be deleted; memberships and grants go with them)',
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

const GrantParams = Type.Object({
  fileId: IdSchema,
  principal: Type.String({ minLength: 1, description: 'user:ID, department:ID or team:ID' }),
});
const GrantSchema = Type.Object({ fileId: Type.String(), principal: Type.String(), role: SharingEntrySchema.properties.role });
/** `If-Match`: the ETag of the record as read; the write is refused (412) when the stored record is another version. */
const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 1000, description: 'the ETag a GET or PUT answered, or *' })) });

function preconditionOf(request: { headers: Record<string, unknown> }): WritePrecondition {
  const ifMatch = request.headers['if-match'];
  return typeof ifMatch === 'string' ? { ifMatch } : {};
}

const refusals = { 400: ProblemsErrorSchema, 404: ProblemsErrorSchema, 409: ProblemsErrorSchema };

/**
 * The built-in directory (teams, departments, users, files, grants): read back one record or a page of
 * them, create or replace, delete. Every write is a change through the one validated path
 * (context.directoryChanges, source `api`): a refused write lists every problem, and nothing is written.
 */
export const directoryManageRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { records } = context.management;
  const writes = recordChanges(context.directoryChanges, 'api', { onShared: shareNotices(context.config) });

  for (const { section, path, param, schema, label, note } of RESOURCES) {
    const params = Type.Object({ [param]: IdSchema });
    const idOf = (request: { params: Record<string, string | undefined> }) => request.params[param] ?? '';
    app.get(
      path,
      {
        schema: {
          summary: `List ${section} by id, a page at a time`,
          security: SECURITY,
          querystring: Type.Object(listQueryProperties),
          response: { 200: listPageSchema(schema), ...errorResponses(400, 401) },
        },
      },
      async (request) => {
        const { limit, cursor } = request.query;
        const after = decodeCursor(cursor, 'string');
        const page = await records.page(section, { ...(after === undefined ? {} : { after }), limit: limit ?? 50 });
        return { items: page.items, nextCursor: encodeCursor(page.last) };
      },
    );

    app.get(
      `${path}/:${param}`,
      {
        schema: { summary: `Read a ${label} as stored`, security: SECURITY, params, response: { 200: schema, ...errorResponses(400, 401, 404) } },
      },
      async (request, reply) => {
        const record = await records.get(section, idOf(request));
        if (record === undefined) throw notFound(`no ${label} ${idOf(request)}`);
        return reply.header('etag', recordTag(record)).send(record);
      },
    );

    app.put(
      `${path}/:${param}`,
      {
        validatorCompiler: validatedBySnapshotRules,
        schema: {
          summary: `Create (201) or replace (200) a ${label}, checked by the snapshot rules${note}`,
          security: SECURITY,
          params,
          body: schema,
          headers: IfMatchHeaders,
          response: { 200: schema, 201: schema, ...refusals, 412: ProblemsErrorSchema, ...errorResponses(401, 413, 415) },
        },
      },
      async (request, reply) => {
        const result = await writes.put(section, idOf(request), request.body, preconditionOf(request));
        if (!result.ok) return replyWithRefusal(reply, result);
        return reply
          .status(result.created ? 201 : 200)
          .header('etag', recordTag(result.record))
          .send(result.record);
      },
    );

    app.delete(
      `${path}/:${param}`,
      {
        schema: {
          summary: `Delete a ${label}${note}`,
          security: SECURITY,
          params,
          headers: IfMatchHeaders,
          response: { 204: Type.Null(), ...refusals, 412: ProblemsErrorSchema, ...errorResponses(401) },
        },
      },
      async (request, reply) => {
        const result = await writes.remove(section, idOf(request), preconditionOf(request));
        if (!result.ok) return replyWithRefusal(reply, result);
        return reply.status(204).send(null);
      },
    );
  }

  app.put(
    '/files/:fileId/grants/:principal',
    {
      validatorCompiler: validatedBySnapshotRules,
      schema: {
        summary: "Give a user, department or team a role on a file (replaces that principal's role)",
        security: SECURITY,
        params: GrantParams,
        body: GrantBodySchema,
        response: { 200: GrantSchema, ...refusals, ...errorResponses(401, 413, 415) },
      },
    },
    async (request, reply) => {
      const { fileId, principal } = request.params;
      const result = await writes.putGrant(fileId, principal, request.body);
      return result.ok ? result.grant : replyWithRefusal(reply, result);
    },
  );

  app.delete(
    '/files/:fileId/grants/:principal',
    {
      schema: { summary: "Remove a principal's grant on a file", security: SECURITY, params: GrantParams, response: { 204: Type.Null(), ...refusals, ...errorResponses(401) } },
    },
    async (request, reply) => {
      const result = await writes.removeGrant(request.params.fileId, request.params.principal);
      if (!result.ok) return replyWithRefusal(reply, result);
      return reply.status(204).send(null);
    },
  );
};
