import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../store/connection/availability.js';
import { HttpError } from './errors.js';
import { validationMessage } from './validation-message.js';

/** The one error shape every route answers with. */
export interface ErrorBody {
  error: { code: string; message: string };
}

const CLIENT_ERROR_CODES: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
};

/** The longest path parameter (an id) the router accepts; longer ones are 414. */
export const MAX_PATH_PARAMETER_LENGTH = 1024;

/** Messages for Fastify's own refusals that would otherwise quote the request back. */
const FRAMEWORK_MESSAGES: Record<string, { status: number; code: string; message: string }> = {
  FST_ERR_BAD_URL: { status: 400, code: 'invalid_url', message: 'the URL has a malformed percent-encoding' },
  FST_ERR_MAX_PARAM_LENGTH: { status: 414, code: 'uri_too_long', message: `a path parameter is longer than ${MAX_PATH_PARAMETER_LENGTH} characters` },
};

/**
 * How a refusal is written for requests under a path prefix: the SCIM routes answer in SCIM's error
 * schema (src/scim/scim-http.ts passes its shape to `buildApp`'s wiring). Everything else: `errorBody`.
 */
export interface ErrorShape {
  prefix: string;
  /** The media type of these answers (SCIM's is `application/scim+json`); JSON when not given. */
  contentType?: string;
  body(status: number, code: string, message: string): unknown;
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** The error answer for a request path: the first shape whose prefix it has, else the one error shape. */
export function errorAnswerFor(shapes: readonly ErrorShape[], path: string | undefined, status: number, code: string, message: string): { body: unknown; contentType: string } {
  const shape =
    path === undefined ? undefined : shapes.find((candidate) => path === candidate.prefix || path.startsWith(`${candidate.prefix}/`) || path.startsWith(`${candidate.prefix}?`));
  return shape
    ? { body: shape.body(status, code, message), contentType: shape.contentType ?? JSON_CONTENT_TYPE }
    : { body: errorBody(code, message), contentType: JSON_CONTENT_TYPE };
}

/**
 * Fastify's `frameworkErrors` option: the router's own refusals (a malformed percent-encoding, a path
 * parameter over the limit: 414) answered in the one error shape (or the shape of the path's prefix)
 * instead of Fastify's default body, with the given headers (src/http/security-headers.ts).
 */
export function frameworkErrorHandlerFor(shapes: readonly ErrorShape[] = [], headers: Readonly<Record<string, string>> = {}) {
  return function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    const known = FRAMEWORK_MESSAGES[error.code];
    const status = known?.status ?? (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400);
    const code = known?.code ?? CLIENT_ERROR_CODES[error.code] ?? 'bad_request';
    const { body, contentType } = errorAnswerFor(shapes, request.raw.url, status, code, known?.message ?? 'the request is not valid');
    // These answers skip the hooks (no route was found): the security headers are set here.
    reply.status(status).headers(headers).type(contentType).serializer(JSON.stringify).send(body);
  };
}

/**
 * Answers every failure as `{ "error": { "code", "message" } }`. Caller mistakes (4xx) say what was wrong;
 * our own faults (5xx) are logged with their stack and answered with a generic message, never internals.
 */
export function installErrorHandler(app: FastifyInstance, options: { retryAfterSeconds?: number } = {}): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) return sendError(reply, error.statusCode, error.code, error.message);
    // The database is away (or the pool could not give a connection in time): not a fault of this request,
    // and it passes by itself. An event answered this way was not stored, and was not acknowledged.
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      reply.header('retry-after', String(options.retryAfterSeconds ?? 10));
      return sendError(reply, 503, 'database_unavailable', 'the database cannot be reached right now; retry later');
    }
    if (error.validation) {
      return sendError(reply, 400, 'invalid_request', validationMessage(error.validationContext ?? 'request', error.validation));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendError(reply, status, CLIENT_ERROR_CODES[error.code] ?? 'bad_request', error.message);
    request.log.error({ err: error }, 'request failed');
    return sendError(reply, 500, 'internal', 'internal server error');
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(reply, 404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`);
  });
}

/**
 * Sends the error shape with a plain JSON serializer: a route's response schema for its status (a 400 that
 * also lists `problems`, say) must never turn a refusal into a failure to serialise it.
 */
function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.status(status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(errorBody(code, message));
}

export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}
