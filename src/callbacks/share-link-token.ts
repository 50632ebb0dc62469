import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { MAX_GUEST_NAME } from '../auth/guest-sessions.js';
import { formatTime } from '../directory/time.js';
import { HttpError } from '../http/errors.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';

/**
 * `POST /share-links/{code}/token`: a guest token for the link's file (docs/sharing.md). The code (and the
 * password, when the link has one) is the only credential. Every answer, granted or refused, is recorded
 * in the audit trail (`sign_in`, credential `share_link`; never the code or the password).
 */
export const shareLinkTokenRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/share-links/:code/token',
    {
      schema: {
        summary: "A guest token for a share link's file (user id guest-…, expiring no later than the link)",
        security: [],
        params: Type.Object({ code: Type.String({ minLength: 1, maxLength: 256 }) }),
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ maxLength: 256, description: `the guest's display name (cut to ${MAX_GUEST_NAME} characters); default Guest` })),
            password: Type.Optional(Type.String({ maxLength: 256 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            token: Type.String(),
            user: Type.Object({ id: Type.String(), name: Type.String() }),
            fileId: Type.String(),
            role: Type.String(),
            expiresAt: TimeSchema,
          }),
          ...errorResponses(400, 403, 404, 413, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const outcome = await context.sharing.sessions.issue({ code: request.params.code, name: request.body.name, password: request.body.password, client: request.ip });
      const link = outcome.link;
      context.audit.record({
        kind: 'sign_in',
        actorId: outcome.ok ? outcome.guest.id : null,
        credential: 'share_link',
        fileId: link?.fileId ?? null,
        action: 'POST /share-links/:code/token',
        permissions: null,
        details: { client: request.ip, outcome: outcome.ok ? 'granted' : outcome.code, ...(link ? { linkId: link.id } : {}) },
      });
      if (!outcome.ok) {
        if (outcome.retryAfterMs !== undefined) reply.header('retry-after', String(Math.ceil(outcome.retryAfterMs / 1000)));
        throw new HttpError(outcome.status, outcome.code, outcome.message);
      }
      return {
        token: outcome.token,
        user: { id: outcome.guest.id, name: outcome.guest.name },
        fileId: outcome.link.fileId,
        role: outcome.link.role,
        expiresAt: formatTime(outcome.expiresAt * 1000),
      };
    },
  );
};
