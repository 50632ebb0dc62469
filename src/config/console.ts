import { parseDuration } from '../shared/duration.js';

/** The operator console's settings (docs/console.md). The console is on exactly when ADMIN_API_KEY is set. */
export interface ConsoleConfig {
  /** Lifetime of a console session after sign-in, in seconds (CONSOLE_SESSION_TTL, default 8h, at most 7d). */
  readonly sessionTtlSeconds: number;
}

const MAX_TTL_SECONDS = 7 * 86400;

/** Reads CONSOLE_SESSION_TTL; throws `makeError` with one line naming the variable and the rule. */
export function consoleConfig(get: (name: string) => string | undefined, makeError: (message: string) => Error): ConsoleConfig {
  const text = get('CONSOLE_SESSION_TTL') ?? '8h';
  const seconds = parseDuration(text);
  if (seconds === undefined || seconds < 60 || seconds > MAX_TTL_SECONDS) {
    throw makeError('CONSOLE_SESSION_TTL must be a duration from 60s to 7d, such as 30m or 8h');
  }
  return Object.freeze({ sessionTtlSeconds: seconds });
}
