/** What went wrong talking to the platform's API. */
export type PlatformFailure =
  /** The platform answered with a status other than success (its code, when the body names one, is in `platformCode`). */
  | 'refused'
  /** The platform answered 2xx but its body reports a failure: a non-zero `status` (import, export), a non-empty `code` (preview). */
  | 'failed'
  /** The platform answered 2xx with a body that is not the documented shape. */
  | 'unexpected'
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

/** A failed call to the platform's API; the message is one line meant for people, with the platform's status and body. */
export class PlatformError extends Error {
  override name = 'PlatformError';
  constructor(
    readonly failure: PlatformFailure,
    message: string,
    /** HTTP status of the platform's answer (refused, failed, unexpected). */
    readonly status?: number,
    /** The platform's own error code from its body, e.g. `70012`. */
    readonly platformCode?: string,
  ) {
    super(message);
  }
}

/** Longest excerpt of a platform body quoted in an error message. */
export const BODY_EXCERPT_LENGTH = 300;

/** The body as one line for a message: `(empty body)` or the text, cut at BODY_EXCERPT_LENGTH. */
export function bodyExcerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty body)';
  return flat.length > BODY_EXCERPT_LENGTH ? `${flat.slice(0, BODY_EXCERPT_LENGTH)}…` : flat;
}

/**
 * Reads the platform's error code and message from an error body. No source shows the shape of the
 * platform's error bodies, so the usual spellings are tried: `{ code, message }`, `{ errorCode, error }`,
 * `{ error: { code, message } }`, `{ err_code, msg }`.
 */
export function parsePlatformErrorBody(text: string): { code?: string; message?: string } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof body !== 'object' || body === null) return {};
  const record = body as Record<string, unknown>;
  const nested = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : {};
  const code = [record.code, record.errorCode, record.error_code, record.err_code, nested.code].find(isCode);
  const message = [record.message, record.msg, record.errorMessage, record.error, nested.message].find((value): value is string => typeof value === 'string' && value !== '');
  return { ...(code === undefined ? {} : { code: String(code) }), ...(message === undefined ? {} : { message: message.slice(0, 200) }) };
}

function isCode(value: unknown): value is string | number {
  return (typeof value === 'number' && Number.isFinite(value) && value !== 0) || (typeof value === 'string' && /^\d+$/.test(value));
}

/**
 * `the platform refused POST /sdk/v2/api/files: HTTP 409, platform error 70012 (file id already exists): exists; body {…}`:
 * what was called, the platform's status, its code and message when the body names them, and the body itself.
 */
export function refusal(call: string, status: number, text: string): PlatformError {
  const { code, message } = parsePlatformErrorBody(text);
  const known = code === undefined ? undefined : PLATFORM_ERROR_CODES[code];
  const what = code === undefined ? '' : `, platform error ${code}${known ? ` (${known})` : ''}${message ? `: ${message}` : ''}`;
  return new PlatformError('refused', `the platform refused ${call}: HTTP ${status}${what}; body ${bodyExcerpt(text)}`, status, code);
}

/** A 2xx answer whose body reports a failure (`status` ≠ 0, preview `code` ≠ ""). */
export function reportedFailure(call: string, status: number, text: string, marker: { field: string; value: string }): PlatformError {
  const what = `${marker.field} ${JSON.stringify(marker.value)}`;
  return new PlatformError('failed', `the platform reported a failure for ${call}: HTTP ${status}, ${what}; body ${bodyExcerpt(text)}`, status, marker.value);
}

/** A 2xx answer whose body is not the documented shape. */
export function unexpectedAnswer(call: string, status: number, text: string, problem: string): PlatformError {
  return new PlatformError('unexpected', `the platform answered ${call} with an unexpected body (${problem}): HTTP ${status}; body ${bodyExcerpt(text)}`, status);
}
