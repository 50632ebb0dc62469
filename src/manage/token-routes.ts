import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { epochSeconds } from '../auth/jwt.js';
import { mintUserToken } from '../auth/user-token.js';
import { parseDuration } from '../shared/duration.js';
import { formatTime } from '../directory/time.js';
import { badRequest, notFound } from '../http/errors.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';

/** The longest token the API issues (a year): a typo such as `3650d` should not mint a token for ever. */
const MAX_TTL_SECONDS = 366 * 86400;

/** `POST /api/tokens`: a user token for the integrator's front end (the same token `collab-host token` prints). */
export const tokenManageRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/tokens',
    {
      schema: {
        summary: 'Issue a user token (X-Platform-Token) for an existing user',
        security: [{ adminKey: [] }],
        body: Type.Object(
          {
            userId: Type.String({ minLength: 1, maxLength: 255 }),
            ttl: Type.Optional(Type.String({ description: 'lifetime such as 3600, 90s, 30m, 2h or 7d; default TOKEN_TTL' })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ token: Type.String(), userId: Type.String(), expiresAt: TimeSchema }),
          ...errorResponses(400, 401, 404, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const { userId, ttl } = request.body;
      const ttlSeconds = ttl === undefined ? context.config.tokenTtlSeconds : parseDuration(ttl);
      if (ttlSeconds === undefined || ttlSeconds <= 0 || ttlSeconds > MAX_TTL_SECONDS) {
        throw badRequest('ttl must be a duration such as 3600, 90s, 30m, 2h or 7d, at most 366d', 'invalid_ttl');
      }
      if (!(await context.directory.getUser(userId))) throw notFound(`no user ${userId}`, 'user_not_found');
      const now = Date.now();
      const token = mintUserToken(userId, context.config.tokenSecret, ttlSeconds, now);
      return reply.status(201).send({ token, userId, expiresAt: formatTime((epochSeconds(now) + ttlSeconds) * 1000) });
    },
  );
};
