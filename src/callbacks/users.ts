import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { notFound } from '../http/errors.js';
import { errorResponses, PathNodeSchema, UserSchema } from '../http/schemas.js';
import { directoryServiceFor, requireUserToken } from './callback-kit.js';
import { CurrentUserSchema, TeamSchema, toCurrentUserBody, toTeamBody, toUserBody } from './wire-shapes.js';

/** What Fastify sends JSON as (its serializer sets it; a route that sends text of its own sets it itself). */
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

const asJson = (value: unknown): string => JSON.stringify(value);

/** `POST /users/batch/get` answers at most this many ids; a longer list is a 400. */
export const MAX_USER_BATCH = 500;

const UserParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 256 }) });

/**
 * Interface 4.2: the current user (with `teamGuid`) and their team, any user's profile, a batch of
 * profiles, watermarks and department paths. Profiles are visible to every signed-in user; department
 * paths only within the viewer's own team (DirectoryService).
 */
export const userRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  requireUserToken(app, context);
  const service = directoryServiceFor(context);

  app.get(
    '/users/current/info',
    { config: { guests: true }, schema: { summary: 'The current user, with teamGuid (a guest: empty)', response: { 200: CurrentUserSchema, ...errorResponses(401) } } },
    async (request) => (request.guest ? { ...toCurrentUserBody(request.viewer), teamGuid: '' } : toCurrentUserBody(request.viewer)),
  );

  app.get('/users/current/team', { schema: { summary: "The current user's team", response: { 200: TeamSchema, ...errorResponses(401, 404) } } }, async (request) => {
    const team = await service.teamOf(request.viewer);
    if (!team) throw notFound('the current user belongs to no team', 'team_not_found');
    return toTeamBody(team);
  });

  app.get(
    '/users/:userId',
    {
      config: { guests: true },
      schema: { summary: 'One user (a guest sees only themselves)', params: UserParams, response: { 200: UserSchema, ...errorResponses(400, 401, 404) } },
    },
    async (request) => {
      if (request.guest && request.params.userId !== request.viewer.id) throw notFound(`no user ${request.params.userId}`, 'user_not_found');
      const user = request.guest ? request.viewer : await context.directory.getUser(request.params.userId);
      if (!user) throw notFound(`no user ${request.params.userId}`, 'user_not_found');
      return toUserBody(user);
    },
  );

  app.post(
    '/users/batch/get',
    {
      config: { guests: true },
      schema: {
        summary: `Several users, in the order asked; unknown ids are left out (at most ${MAX_USER_BATCH} ids; a guest sees only themselves)`,
        body: Type.Object({ ids: Type.Array(Type.String({ maxLength: 256 }), { maxItems: MAX_USER_BATCH }) }),
        response: { 200: Type.Array(UserSchema), ...errorResponses(400, 401, 413, 415) },
      },
    },
    async (request, reply) => {
      const users = request.guest ? request.body.ids.filter((id) => id === request.viewer.id).map(() => request.viewer) : await service.usersInOrder(request.body.ids);
      // Users (2.4) hold strings only, in the schema's order (toUserBody): JSON.stringify writes the bytes the
      // schema's serializer would, faster for 50 users (test/callbacks/users.test.ts holds them equal).
      reply.header('content-type', JSON_CONTENT_TYPE).serializer(asJson);
      return users.map(toUserBody);
    },
  );

  app.get(
    '/users/:userId/watermark',
    {
      config: { guests: true },
      schema: {
        summary: "A user's watermark lines: their own, else the configured template; [] hides it (a guest: their own only, naming the link's owner)",
        params: UserParams,
        response: { 200: Type.Object({ watermarks: Type.Array(Type.String()) }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      if (request.guest && request.params.userId !== request.viewer.id) throw notFound(`no user ${request.params.userId}`, 'user_not_found');
      const user = request.params.userId === request.viewer.id ? request.viewer : await context.directory.getUser(request.params.userId);
      if (!user) throw notFound(`no user ${request.params.userId}`, 'user_not_found');
      return { watermarks: service.watermarkFor(user) };
    },
  );

  app.get(
    '/users/:userId/department-paths',
    {
      schema: {
        summary: "One path per department of the user, first level down (users of the viewer's team only)",
        params: UserParams,
        response: { 200: Type.Array(Type.Array(PathNodeSchema)), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const paths = await service.departmentPaths(request.viewer, request.params.userId);
      if (!paths) throw notFound(`no user ${request.params.userId} in your team`, 'user_not_found');
      return paths;
    },
  );
};
