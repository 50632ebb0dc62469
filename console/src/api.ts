/**
 * The console's one way to the server: same-origin fetches carrying the HttpOnly session cookie, with
 * the session's CSRF token in X-CSRF-Token on every write. A 401 means the session is over: the app
 * shows the sign-in form again.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface Session {
  csrfToken: string;
  expiresAt: string;
  /** PLATFORM_API_URL is set: only then does the page ask /api/platform (no 503 in the browser's console). */
  platformConfigured?: boolean;
}

let platformKnownConfigured = true;

/** Whether the server calls a platform (from the session); pages skip /api/platform without one. */
export function platformConfigured(): boolean {
  return platformKnownConfigured;
}

let csrfToken: string | null = null;
let onSignedOut: () => void = () => undefined;

/** Called when any request answers 401 (expired or signed-out session). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/** A body with the ETag its response carried (a record's version: send it back in If-Match). */
export interface Tagged<T> {
  body: T;
  etag: string | null;
}

/** One request, answering the parsed body and the response's ETag; a non-2xx answer throws ApiError. */
export async function requestTagged<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Tagged<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== null) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  const etag = response.headers.get('etag');
  if (response.status === 204) return { body: undefined as T, etag };
  const text = await response.text();
  const parsed: unknown = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
    if (response.status === 401 && !path.startsWith('/console/session')) {
      csrfToken = null;
      onSignedOut();
    }
    throw new ApiError(response.status, error?.code ?? 'http_error', error?.message ?? `${method} ${path} answered ${response.status}`);
  }
  return { body: parsed as T, etag };
}

export async function request<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
  return (await requestTagged<T>(method, path, body, extraHeaders)).body;
}

export const get = <T>(path: string) => request<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => request<T>('POST', path, body);

/** The current session after a reload, or null when not signed in. */
export async function currentSession(): Promise<Session | null> {
  try {
    // The probe header: "not signed in" is 204, not a 401 in the browser's console.
    const session = await request<Session | undefined>('GET', '/console/session', undefined, { 'x-console-probe': '1' });
    if (session === undefined) return null;
    csrfToken = session.csrfToken;
    platformKnownConfigured = session.platformConfigured ?? true;
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return null;
    throw error;
  }
}

export async function signIn(key: string): Promise<Session> {
  const session = await post<Session>('/console/session', { key });
  csrfToken = session.csrfToken;
  platformKnownConfigured = session.platformConfigured ?? true;
  return session;
}

export async function signOut(): Promise<void> {
  await request<void>('DELETE', '/console/session');
  csrfToken = null;
}

/** A page of a management listing (contracts.md: `{ items, nextCursor }`). */
export interface Listing<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Every item of a listing, page after page, up to `cap` items; `complete` is false when it stopped at
 * the cap (the page then says "at least").
 */
export async function collect<T>(path: string, cap = 5000): Promise<{ items: T[]; complete: boolean }> {
  const items: T[] = [];
  let cursor: string | null = null;
  const separator = path.includes('?') ? '&' : '?';
  do {
    const page: Listing<T> = await get<Listing<T>>(`${path}${separator}limit=500${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null && items.length < cap);
  return { items, complete: cursor === null };
}

export const query = (params: Record<string, string | undefined>) => {
  const entries = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== '');
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
};
