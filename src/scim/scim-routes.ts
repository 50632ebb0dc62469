import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { ScimService } from '../sync/scim/scim-service.js';
import type { ScimGroups } from '../sync/scim/scim-groups.js';
import type { ScimUsers } from '../sync/scim/scim-users.js';
import { installScimConventions, ScimErrorSchema } from './scim-http.js';

/** A SCIM resource or message: its `schemas`, and whatever attributes the resource has. */
const ScimBody = Type.Object({ schemas: Type.Array(Type.String()) }, { additionalProperties: true, description: 'a SCIM resource or message (RFC 7643)' });
const ListQuerySchema = Type.Object({
  filter: Type.Optional(Type.String({ maxLength: 2000, description: 'RFC 7644 §3.4.2.2, e.g. userName eq "zhang@example.com"' })),
  startIndex: Type.Optional(Type.Integer({ description: 'from 1; smaller values are taken as 1' })),
  count: Type.Optional(Type.Integer({ description: 'page size, at most 200; 0 answers the total only' })),
  attributes: Type.Optional(Type.String({ maxLength: 2000 })),
  excludedAttributes: Type.Optional(Type.String({ maxLength: 2000 })),
  sortBy: Type.Optional(Type.String({ maxLength: 300, description: 'RFC 7644 §3.4.2.3: an attribute path, e.g. userName or meta.created' })),
  sortOrder: Type.Optional(Type.String({ enum: ['ascending', 'descending'], description: 'ascending by default; resources without the value come last (ascending) or first' })),
});
const ReadQuerySchema = Type.Object({
  attributes: Type.Optional(Type.String({ maxLength: 2000 })),
  excludedAttributes: Type.Optional(Type.String({ maxLength: 2000 })),
});
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((status) => [status, ScimErrorSchema]));
const tags = ['scim'];

/** The If-Match header (RFC 7644 §3.14): the write is refused with 412 unless the resource is still that version. */
function ifMatchOf(request: { headers: Record<string, unknown> }): string | undefined {
  const value = request.headers['if-match'];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Answers a resource with the `ETag` header RFC 7644 §3.14 asks for: its `meta.version` (a resource read
 * without `meta`, through `attributes`, has none).
 */
function withETag<T>(reply: FastifyReply, resource: T): T {
  const version = (resource as { meta?: { version?: unknown } } | null)?.meta?.version;
  if (typeof version === 'string') reply.header('etag', version);
  return resource;
}

/**
 * SCIM 2.0 service provider (RFC 7643/7644) under `/scim/v2`, for the team SCIM_TEAM_ID: Users and
 * Groups (departments), with the discovery resources. Handlers are thin: the protocol and the directory
 * writes live in src/sync/scim. docs/sync.md says how Okta and Entra ID connect.
 */
export const scimRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const config = context.config.sync.scim;
  installScimConventions(app, config?.token);
  const service = context.scim;
  if (!config || !service) return;

  app.get('/ServiceProviderConfig', { schema: { summary: 'What this SCIM service supports', tags, response: { 200: ScimBody, ...errors(401, 404) } } }, async () =>
    service.serviceProviderConfig(),
  );
  app.get('/ResourceTypes', { schema: { summary: 'User and Group', tags, response: { 200: ScimBody, ...errors(401, 404) } } }, async () =>
    ScimService.listOf(service.resourceTypes()),
  );
  app.get('/ResourceTypes/:id', { schema: { summary: 'One resource type', tags, params: IdParams, response: { 200: ScimBody, ...errors(401, 404) } } }, async (request) =>
    service.resourceType(request.params.id),
  );
  app.get('/Schemas', { schema: { summary: 'The User, enterprise User and Group schemas', tags, response: { 200: ScimBody, ...errors(401, 404) } } }, async () =>
    ScimService.listOf(service.schemas()),
  );
  app.get('/Schemas/:id', { schema: { summary: 'One schema, by its URN', tags, params: IdParams, response: { 200: ScimBody, ...errors(401, 404) } } }, async (request) =>
    service.schema(request.params.id),
  );

  const resources: Array<{ path: string; label: string; of: (service: ScimService) => ScimUsers | ScimGroups }> = [
    { path: '/Users', label: 'user', of: (over) => over.users },
    { path: '/Groups', label: 'group (a department; "Parent/Child" names nest)', of: (over) => over.groups },
  ];
  for (const { path, label, of } of resources) {
    const collection = of(service);
    // Every write reads, changes and writes back in the directory's write turn (no lost update).
    const writing = <T>(work: (inside: ScimUsers | ScimGroups) => Promise<T>) => service.writing((inside) => work(of(inside)));
    app.get(
      path,
      {
        schema: {
          summary: `List or filter ${label}s (filter, sortBy, startIndex, count)`,
          tags,
          querystring: ListQuerySchema,
          response: { 200: ScimBody, ...errors(400, 401, 404) },
        },
      },
      async (request) => collection.list(request.query),
    );
    app.get(
      `${path}/:id`,
      { schema: { summary: `One ${label}`, tags, params: IdParams, querystring: ReadQuerySchema, response: { 200: ScimBody, ...errors(400, 401, 404) } } },
      async (request, reply) => withETag(reply, await collection.get(request.params.id, request.query)),
    );
    app.post(path, { schema: { summary: `Create a ${label}`, tags, body: Type.Unknown(), response: { 201: ScimBody, ...errors(400, 401, 404, 409) } } }, async (request, reply) =>
      reply.status(201).send(withETag(reply, await writing((inside) => inside.create(request.body)))),
    );
    app.put(
      `${path}/:id`,
      { schema: { summary: `Replace a ${label}`, tags, params: IdParams, body: Type.Unknown(), response: { 200: ScimBody, ...errors(400, 401, 404, 409, 412) } } },
      async (request, reply) => withETag(reply, await writing((inside) => inside.replace(request.params.id, request.body, ifMatchOf(request)))),
    );
    app.patch(
      `${path}/:id`,
      {
        schema: {
          summary: `Change a ${label} (PatchOp: add, replace, remove)`,
          tags,
          params: IdParams,
          body: Type.Unknown(),
          response: { 200: ScimBody, ...errors(400, 401, 404, 409, 412) },
        },
      },
      async (request, reply) => withETag(reply, await writing((inside) => inside.patch(request.params.id, request.body, ifMatchOf(request)))),
    );
    app.delete(
      `${path}/:id`,
      {
        schema: {
          summary: path === '/Users' ? 'Delete a user (one who created files is deactivated instead; the files stay)' : 'Delete a group (sub-groups first)',
          tags,
          params: IdParams,
          response: { 204: Type.Null(), ...errors(401, 404, 409, 412) },
        },
      },
      async (request, reply) => {
        await writing((inside) => inside.remove(request.params.id, ifMatchOf(request)));
        return reply.status(204).send(null);
      },
    );
  }
};
