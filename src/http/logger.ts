import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { redactUrl } from '../shared/redaction.js';

/** Where log lines go instead of stdout (tests read them). */
export interface LogStream {
  write(line: string): void;
}

/** pino options: object first, request ids, and no credential in any logged header or URL. */
export function loggerOptions(level: string, stream?: LogStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
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

/**
 * The request log outside production: Fastify's two lines per request scrolled the banner away (the
 * console's polling alone made a thousand lines in five minutes). A request that fails (4xx, 5xx) is one
 * line at info; every other line is at debug (LOG_LEVEL=debug shows them all). Production keeps Fastify's.
 */
export class QuietRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply);
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    if (reply.statusCode >= 400) reply.log.info(line, 'request failed');
    else reply.log.debug(line, 'request completed');
  }
}
