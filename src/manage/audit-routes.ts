import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { badRequest } from '../http/errors.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';

import { decodeTailCursor, DEFAULT_LIST_LIMIT, encodeTailCursor, listPageSchema, listQueryProperties } from '../http/paging.js';

const SECURITY = [{ adminKey: [] }];
const Kind = Type.Union([Type.Literal('file_access'), Type.Literal('management'), Type.Literal('directory_change'), Type.Literal('sign_in')]);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const AuditItem = Type.Object({
  id: Type.Integer(),
  at: TimeSchema,
  kind: Type.String({ description: 'file_access, management, directory_change or sign_in' }),
  actorId: Nullable(Type.String({ description: 'the user (file access), null for the admin key, a console session or a directory source' })),
  credential: Type.String({
    description: 'user_token, platform_signature, download_link, admin_key, console_session; for directory changes their source: api, snapshot, scim, ldap',
  }),
  fileId: Nullable(Type.String()),
  action: Type.String({ description: 'the route (GET /files/:fileId) or the change (users updated)' }),
  permissions: Nullable(Type.Array(Type.String(), { description: 'file access: the permissions decided (empty: refused)' })),
  details: Nullable(Type.Record(Type.String(), Type.Unknown())),
});

/**
 * `GET /api/audit`: the audit log, oldest first, by time, kind, actor and file. There is no route that
 * changes or deletes an entry; entries leave only through AUDIT_RETENTION_DAYS.
 */
export const auditRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/audit',
    {
      schema: {
        summary: 'The audit log, oldest first: access decisions on files, management writes, directory changes',
        tags: ['management'],
        security: SECURITY,
        querystring: Type.Object({
          since: Type.Optional(TimeSchema),
          until: Type.Optional(TimeSchema),
          kind: Type.Optional(Kind),
          actorId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
          fileId: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
          ...listQueryProperties,
        }),
        response: { 200: listPageSchema(AuditItem), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { since, until, kind, actorId, fileId, limit, cursor } = request.query;
      if (since !== undefined && until !== undefined && until < since) throw badRequest('until must not be before since', 'invalid_range');
      const page = await context.management.auditLog.list({
        ...defined({ since, until, kind, actorId, fileId }),
        ...defined({ after: decodeTailCursor(cursor) }),
        limit: limit ?? DEFAULT_LIST_LIMIT,
      });
      return { items: page.items, nextCursor: encodeTailCursor(page.next) };
    },
  );
};

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The management API's onResponse hook: every write it answered with success goes to the audit trail
 * with the credential that made it (admin key or console session), the route and its path parameters
 * (ids; never bodies, which may hold secrets). Buffered like the access decisions.
 */
export function auditManagementWrites(context: AppContext) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!WRITES.has(request.method) || reply.statusCode >= 400) return;
    const params = (request.params ?? {}) as Record<string, unknown>;
    context.audit.record({
      kind: 'management',
      actorId: null,
      credential: request.headers.authorization === undefined ? 'console_session' : 'admin_key',
      fileId: typeof params.fileId === 'string' ? params.fileId : null,
      action: `${request.method} ${request.routeOptions.url ?? request.url}`,
      permissions: null,
      details: { status: reply.statusCode, ...(Object.keys(params).length > 0 ? { params } : {}), ...mintedFor(request) },
    });
  };
}

/** A token's user, on POST /api/tokens: who the minted token acts as. */
function mintedFor(request: FastifyRequest): { tokenUserId?: string } {
  if (request.routeOptions.url !== '/api/tokens') return {};
  const body = request.body as { userId?: unknown } | undefined;
  return typeof body?.userId === 'string' ? { tokenUserId: body.userId } : {};
}

function defined<T extends Record<string, unknown>>(values: T): Partial<{ [K in keyof T]: Exclude<T[K], undefined> }> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<{ [K in keyof T]: Exclude<T[K], undefined> }>;
}
