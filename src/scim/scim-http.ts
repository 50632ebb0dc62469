import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { MAX_JSON_DEPTH, nestsDeeperThan, tooDeepError } from '../http/json-body.js';
import { checkScimBody } from '../sync/scim/scim-input.js';
import { SCIM_CONTENT_TYPE, ScimProblem } from '../sync/scim/scim-protocol.js';
import { scimErrorBody } from './scim-error-body.js';

/**
 * A SCIM error body (RFC 7644 §3.12), with the `error: { code, message }` every collab-host error
 * carries beside it (SCIM clients ignore attributes they do not know).
 */
export const ScimErrorSchema = Type.Object(
  {
    schemas: Type.Array(Type.String()),
    status: Type.String(),
    scimType: Type.Optional(Type.String()),
    detail: Type.String(),
    error: Type.Object({ code: Type.String(), message: Type.String() }),
  },
  { description: 'SCIM error (RFC 7644 §3.12)' },
);

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * The SCIM routes' own conventions, inside their plugin only: bodies of `application/scim+json` are
 * JSON, answers are `application/scim+json`, every failure has the SCIM error shape, and every request
 * needs `Authorization: Bearer SCIM_TOKEN` (constant-time comparison). Without SCIM_TOKEN the service is
 * off and answers 404.
 */
export function installScimConventions(app: FastifyInstance, token: string | undefined): void {
  app.addContentTypeParser(['application/scim+json'], { parseAs: 'string' }, (_request, body, done) => {
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) return done(tooDeepError(), undefined);
    try {
      done(null, body === '' ? undefined : JSON.parse(body as string));
    } catch {
      done(new ScimProblem(400, 'invalidSyntax', 'the body is not valid JSON'), undefined);
    }
  });

  const expected = token === undefined ? undefined : digest(token);
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (expected === undefined) throw new ScimProblem(404, undefined, 'SCIM provisioning is off: set SCIM_TOKEN and SCIM_TEAM_ID to turn it on');
    const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '');
    if (!match) throw new ScimProblem(401, undefined, 'SCIM needs Authorization: Bearer <SCIM_TOKEN>');
    if (!timingSafeEqual(digest(match[1]!.trim()), expected)) throw new ScimProblem(401, undefined, 'the SCIM token is not valid');
  });

  // Before any handler (and so before scimmy): a JSON object, no prototype keys, the text rule, bounds.
  app.addHook('preHandler', async (request: FastifyRequest) => {
    if (request.method === 'POST' || request.method === 'PUT' || request.method === 'PATCH') checkScimBody(request.body);
  });

  app.addHook('onSend', async (_request, reply: FastifyReply, payload) => {
    if (reply.statusCode !== 204) reply.header('content-type', SCIM_CONTENT_TYPE);
    return payload;
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof ScimProblem) return reply.status(error.status).send(scimErrorBody(error.status, error.scimType, error.message));
    if (error.validation) return reply.status(400).send(scimErrorBody(400, 'invalidValue', `${error.validationContext ?? 'request'}${error.message.replace(/^\w+/, '')}`));
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return reply.status(status).send(scimErrorBody(status, status === 400 ? 'invalidSyntax' : undefined, error.message));
    request.log.error({ err: error }, 'SCIM request failed');
    return reply.status(500).send(scimErrorBody(500, undefined, 'internal server error'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(scimErrorBody(404, undefined, `no SCIM endpoint ${request.method} ${request.url.split('?')[0]}`));
  });
}
