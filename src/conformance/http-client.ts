/** What came back from one call: the status and the parsed JSON body (undefined when not JSON). */
export interface HttpAnswer {
  method: string;
  path: string;
  status: number;
  body: unknown;
  text: string;
  contentType: string;
}

export interface HttpRequest {
  method?: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
}

/** A network failure or time-out, told apart from an HTTP answer. */
export class HttpFailure extends Error {
  override name = 'HttpFailure';
}

/** Calls `base + path` with global fetch and a time-out; never hangs, never throws on a 4xx or 5xx. */
export async function callHttp(base: string, path: string, request: HttpRequest = {}, timeoutMs = 10_000): Promise<HttpAnswer> {
  const method = request.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  let payload: string | undefined;
  if (request.body !== undefined) {
    payload = JSON.stringify(request.body);
    headers['content-type'] = 'application/json';
  }
  const url = joinUrl(base, path);
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { method, headers, body: payload, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    text = await response.text();
  } catch (error) {
    const cause = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : describe(error);
    throw new HttpFailure(`${method} ${path}: ${cause}`);
  }
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { method, path, status: response.status, body, text, contentType: response.headers.get('content-type') ?? '' };
}

export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path.startsWith('/') ? path : `/${path}`}`;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}

/** The start of an answer's body on one line, for a failure message (empty when there is no body). */
export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '';
  return `: ${flat.length > 120 ? `${flat.slice(0, 117)}...` : flat}`;
}
