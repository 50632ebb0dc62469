import type { FastifyError, FastifyInstance } from 'fastify';
import { HttpError } from './errors.js';

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

/**
 * Answers every failure as `{ "error": { "code", "message" } }`. Caller mistakes (4xx) say what was wrong;
 * our own faults (5xx) are logged with their stack and answered with a generic message, never internals.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof HttpError) {
      return reply.status(error.statusCode).send(errorBody(error.code, error.message));
    }
    if (error.validation) {
      const where = error.validationContext ?? 'request';
      return reply.status(400).send(errorBody('invalid_request', `${where}${error.message.replace(/^\w+/, '')}`));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send(errorBody(CLIENT_ERROR_CODES[error.code] ?? 'bad_request', error.message));
    }
    request.log.error({ err: error }, 'request failed');
    return reply.status(500).send(errorBody('internal', 'internal server error'));
  });

  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(errorBody('not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });
}

export function errorBody(code: string, message: string): ErrorBody {
  return { error: { code, message } };
}
