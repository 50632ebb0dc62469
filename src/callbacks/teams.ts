import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { notFound } from '../http/errors.js';
import { MAX_UNPAGED_MEMBERS, pageQueryProperties, pageRequest } from '../http/paging.js';
import { errorResponses, UserSchema } from '../http/schemas.js';
import { directoryServiceFor, requireUserToken } from './callback-kit.js';
import { toUserBody } from './wire-shapes.js';

const TEAM_PAGE_SIZE = 10;

/**
 * Interface 4.3, `GET /teams/{teamId}/members` (the viewer's own team only; another team is 404).
 * Paged when `pagination=true`, or when absent and `page` or `pageSize` is given; otherwise the first
 * MAX_UNPAGED_MEMBERS members by name.
 */
export const teamRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  requireUserToken(app, context);
  const service = directoryServiceFor(context);

  app.get(
    '/teams/:teamId/members',
    {
      schema: {
        summary: 'Members of a team, by name',
        params: Type.Object({ teamId: Type.String({ minLength: 1, maxLength: 256 }) }),
        querystring: Type.Object({ pagination: Type.Optional(Type.Boolean()), ...pageQueryProperties(TEAM_PAGE_SIZE) }),
        response: { 200: Type.Array(UserSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { pagination, page, pageSize } = request.query;
      const paged = pagination ?? (page !== undefined || pageSize !== undefined);
      const rows = paged ? pageRequest(page, pageSize, TEAM_PAGE_SIZE) : { offset: 0, limit: MAX_UNPAGED_MEMBERS };
      const members = await service.teamMembers(request.viewer, request.params.teamId, rows);
      if (!members) throw notFound(`no team ${request.params.teamId} of yours`, 'team_not_found');
      return members.map(toUserBody);
    },
  );
};
