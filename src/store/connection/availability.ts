/**
 * Whether an error means the database cannot be reached right now (refused or dropped connection, server
 * shutting down or starting, pool time-out), as opposed to a fault in a query. The HTTP layer answers such
 * errors 503 with Retry-After instead of 500; the process stays up and the pool reconnects by itself.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = (cause as { cause?: unknown }).cause, depth++) {
    if (cause instanceof DatabaseUnavailableError) return true;
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || /^(08|57P0[1-3])/.test(code))) return true;
    if (UNAVAILABLE_MESSAGES.test(cause.message)) return true;
  }
  return false;
}

/** Socket errors of a connection that cannot be made or was cut. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  // mysql2: the connection was cut, or the server refuses connections (too many, shutting down).
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_SERVER_SHUTDOWN_COMPLETE',
  'ER_TOO_MANY_USER_CONNECTIONS',
]);

/** What pg says without a code when a connection ends or cannot be had from the pool in time. */
const UNAVAILABLE_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated unexpectedly)/;

/** The database could not be reached: names it (password redacted) and says why. */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  constructor(url: string, cause: unknown) {
    super(`cannot reach the database ${redactDatabaseUrl(url)}: ${describeCause(cause)}`, { cause });
  }
}

/** `postgres://user:secret@host/db` → `postgres://user:[redacted]@host/db` (mysql:// too); SQLite URLs as they are. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^((?:postgres(?:ql)?|mysql|mariadb):\/\/[^:@/]*:)[^@/]*@/, '$1[redacted]@').replace(/([?&]password=)[^&]*/gi, '$1[redacted]');
}

function describeCause(cause: unknown): string {
  if (cause instanceof AggregateError && cause.errors.length > 0) return describeCause(cause.errors[0]);
  if (!(cause instanceof Error)) return String(cause);
  return cause.message || (cause as { code?: string }).code || cause.name;
}
