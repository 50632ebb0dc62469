import type { FastifyServerOptions } from 'fastify';
import { redactUrl } from '../redaction.js';

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
        '*.metricsToken',
        '*.previousSecrets',
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
