/** What went wrong talking to the platform's API. */
export type PlatformFailure =
  /** The platform answered with an error (its code, when the body names one, is in `platformCode`). */
  | 'refused'
  /** No answer within the time-out. Whether the platform acted is unknown. */
  | 'timeout'
  /** The connection failed (refused, reset, DNS). */
  | 'unreachable'
  /** PLATFORM_API_URL is not set. */
  | 'not-configured';

/** Error codes of the platform's API that collab-host knows by meaning (callback-interface.md 4.8, 7). */
export const PLATFORM_ERROR_CODES: Readonly<Record<string, string>> = {
  '70001': 'bad parameters',
  '70012': 'file id already exists',
  '70013': 'file does not exist',
};

/** A failed call to the platform's API; the message is one line meant for people and names the code. */
export class PlatformError extends Error {
  override name = 'PlatformError';
  constructor(
    readonly failure: PlatformFailure,
    message: string,
    /** HTTP status of the platform's answer (for `refused`). */
    readonly status?: number,
    /** The platform's own error code from its body, e.g. `70012`. */
    readonly platformCode?: string,
  ) {
    super(message);
  }
}

/**
 * Reads the platform's error code and message from an error body. The body's shape is not described by
 * the interface, so the usual spellings are tried: `{ code, message }`, `{ errorCode, error }`,
 * `{ error: { code, message } }`, `{ err_code, msg }`.
 */
export function parsePlatformErrorBody(text: string): { code?: string; message?: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const trimmed = text.trim().slice(0, 200);
    return trimmed === '' ? {} : { message: trimmed };
  }
  if (typeof body === 'string' && body.trim() !== '') return { message: body.trim().slice(0, 200) };
  if (typeof body !== 'object' || body === null) return {};
  const record = body as Record<string, unknown>;
  const nested = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : {};
  const code = [record.code, record.errorCode, record.error_code, record.err_code, nested.code].find(isCode);
  const message = [record.message, record.msg, record.errorMessage, record.error, nested.message].find(
    (value): value is string => typeof value === 'string' && value !== '',
  );
  return { ...(code === undefined ? {} : { code: String(code) }), ...(message === undefined ? {} : { message: message.slice(0, 200) }) };
}

function isCode(value: unknown): value is string | number {
  return (typeof value === 'number' && Number.isFinite(value) && value !== 0) || (typeof value === 'string' && /^\d+$/.test(value));
}

/** `platform error 70012 (file id already exists): <message>` */
export function describePlatformRefusal(status: number, code: string | undefined, message: string | undefined): string {
  const known = code === undefined ? undefined : PLATFORM_ERROR_CODES[code];
  const what = code === undefined ? `HTTP ${status}` : `platform error ${code}${known ? ` (${known})` : ''}`;
  return `the platform refused the request: ${what}${message ? `: ${message}` : ''}`;
}
