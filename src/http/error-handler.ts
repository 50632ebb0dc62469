import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isScimUrl, SCIM_CONTENT_TYPE, scimErrorBody } from '../scim/scim-error-body.js';
import { isDatabaseUnavailable } from '../store/availability.js';
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
 * Fastify's `frameworkErrors` option: the router's own refusals (a malformed percent-encoding, a path
 * parameter over the limit) answered in the one error shape instead of Fastify's default body.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const known = FRAMEWORK_MESSAGES[error.code];
  const status = known?.status ?? (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400);
  const code = known?.code ?? CLIENT_ERROR_CODES[error.code] ?? 'bad_request';
  const message = known?.message ?? 'the request is not valid';
  // SCIM clients read SCIM's error schema (RFC 7644 §3.12), whichever layer refused.
  if (isScimUrl(request.url)) {
    reply.status(status).type(SCIM_CONTENT_TYPE).serializer(JSON.stringify).send(scimErrorBody(status, undefined, message, code));
    return;
  }
  sendError(reply, status, code, message);
}

const CLIENT_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'headers_too_large', message: 'the request headers are larger than the server accepts' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', message: 'the request took too long to arrive' },
};

/**
 * Fastify's `clientErrorHandler` option: what Node's HTTP parser refuses before any route (headers too
 * large, a malformed request) answered in the one error shape, or in SCIM's error schema when the request
 * line names a SCIM address, then the connection is closed.
 */
export function clientErrorHandler(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, code, message } = CLIENT_ERRORS[error.code] ?? { status: 400, code: 'bad_request', message: 'the request is not valid HTTP' };
  // Node hands over the bytes received so far (a Buffer, whatever Fastify's type says).
  const received: unknown = error.rawPacket;
  const scim = Buffer.isBuffer(received) && /^[A-Z]+ \/scim\//.test(received.toString('latin1', 0, 32));
  const body = JSON.stringify(scim ? scimErrorBody(status, undefined, message, code) : errorBody(code, message));
  const type = scim ? SCIM_CONTENT_TYPE : 'application/json; charset=utf-8';
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: ${type}\r\n\r\n${body}`);
  socket.destroy();
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
