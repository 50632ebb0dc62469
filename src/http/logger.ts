import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
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

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type Bindings = Record<string, unknown>;
/** pino's loggers answer this; a logger without it is taken to log at every level. */
type LevelAware = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * A request's logger (`request.log`), made only when a line is logged at a level that is on. Fastify makes
 * a pino child per request; with the redaction's wildcard paths, pino runs every binding (the request id)
 * through the redaction as it makes one: a few per cent of a document open's CPU for a logger that, at
 * the usual levels, never writes a line. The lines it writes are the child's, unchanged.
 */
class RequestLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: LevelAware,
    private readonly bindings: Bindings,
  ) {}

  private get logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings));
  }

  private on(level: Level): boolean {
    const logger = (this.made ?? this.parent) as LevelAware;
    return logger.isLevelEnabled === undefined || logger.isLevelEnabled(level);
  }

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger.level = level;
  }

  /** One level's method (`fatal` … `trace`, below): the child's, when that level is on. */
  private write(level: Level, args: unknown[]): void {
    if (this.on(level)) (this.logger[level] as (...a: unknown[]) => void)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: Parameters<FastifyBaseLogger['child']>[1]): FastifyBaseLogger {
    return this.logger.child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a request's logger made when first used (RequestLogger). A route with a
 * log level or serializers of its own (any child option) gets pino's child at once.
 */
export function requestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: Parameters<FastifyBaseLogger['child']>[1]): FastifyBaseLogger {
  if (options !== undefined) for (const _ in options) return logger.child(bindings, options);
  return new RequestLogger(logger, bindings) as unknown as FastifyBaseLogger;
}
