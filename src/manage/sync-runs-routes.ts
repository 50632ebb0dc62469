import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { decodeCursor, DEFAULT_LIST_LIMIT, encodeCursor, listPageSchema, listQueryProperties } from '../http/paging.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';

const Counts = Type.Object({
  created: Type.Integer(),
  updated: Type.Integer(),
  removed: Type.Integer(),
  deactivated: Type.Integer({ description: 'users kept, deactivated (a removed user counts as removed only)' }),
  reactivated: Type.Integer(),
  skipped: Type.Integer({ description: 'entries the run left out (listed in skipped)' }),
});

const RunItem = Type.Object({
  id: Type.Integer(),
  source: Type.String({ description: 'scim or ldap' }),
  mode: Type.String({ description: 'full or incremental (LDAP), request (one SCIM write)' }),
  dryRun: Type.Boolean(),
  status: Type.String({ description: 'running, ok, unchanged or failed' }),
  detail: Type.Union([Type.String(), Type.Null()], { description: 'what ran: the SCIM request, or how an LDAP run read' }),
  startedAt: TimeSchema,
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  counts: Counts,
  changes: Type.Record(Type.String(), Type.Record(Type.String(), Type.Array(Type.String())), {
    description: 'ids per section and kind of change, e.g. { "users": { "created": ["u1"] } } (at most 200 per list)',
  }),
  skipped: Type.Array(Type.Object({ dn: Type.String(), reason: Type.String() }), {
    description: 'LDAP entries the run could not take, by DN and why (at most 200); everything else was applied',
  }),
  errors: Type.Array(Type.String()),
});

/** `GET /api/sync/runs`: every directory sync run (LDAP runs, SCIM write requests), newest first. */
export const syncRunRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const runs = context.management.syncRuns;
  app.get(
    '/sync/runs',
    {
      schema: {
        summary: 'Directory sync runs (SCIM requests and LDAP runs), newest first, with their counts and errors',
        tags: ['management'],
        security: [{ adminKey: [] }],
        querystring: Type.Object({
          source: Type.Optional(Type.Union([Type.Literal('scim'), Type.Literal('ldap')])),
          ...listQueryProperties,
        }),
        response: { 200: listPageSchema(RunItem), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { source, cursor } = request.query;
      const limit = request.query.limit ?? DEFAULT_LIST_LIMIT;
      // The cursor is the id of the last run shown; runs are listed newest first.
      const before = decodeCursor(cursor, 'number');
      const items = await runs.list({ ...(source === undefined ? {} : { source }), ...(before === undefined ? {} : { before }), limit });
      return { items, nextCursor: items.length === limit ? encodeCursor(items.at(-1)!.id) : null };
    },
  );
};
