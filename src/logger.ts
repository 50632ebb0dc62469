import type { FastifyServerOptions } from 'fastify';

/** Query parameters that carry credentials; their values never reach the log. */
const SECRET_QUERY_PARAMS = /([?&](?:token|signature|sig|key|secret)=)[^&]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1[redacted]');
}

/** pino options: object first, request ids, and no credential in any logged header or URL. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-platform-token"]',
        'req.headers["x-platform-signature"]',
        'req.headers["x-shimo-token"]',
        'req.headers["x-shimo-signature"]',
        '*.appSecret',
        '*.tokenSecret',
        '*.adminApiKey',
        '*.notifyWebhookSecret',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req(request: { method: string; url: string; id: string; ip?: string }) {
        return { id: request.id, method: request.method, url: redactUrl(request.url), remoteAddress: request.ip };
      },
    },
  };
}
