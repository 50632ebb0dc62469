import type { AppCredentials } from '../auth/platform-signature.js';
import { mintApiSignature, type ApiScope } from './api-signature.js';
import { PlatformError, refusal } from './platform-errors.js';

/** The user on whose behalf a call is made: the platform sends the token back on the document's callbacks. */
export interface PlatformUser {
  /** The user's token (collab-host's own user token). */
  token: string;
  /** `X-Weboffice-User-Uuid`, sent when the callback version is v2. */
  uuid?: string;
}

/** One request to the platform API. */
export interface PlatformRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Relative to PLATFORM_API_URL, each path segment already encoded. */
  path: string;
  /** Query parameters of the call itself (a list repeats the parameter). */
  query?: Record<string, string | number | readonly string[] | undefined>;
  /** A JSON body (sent with `Content-Type: application/json`). */
  json?: unknown;
  /** A multipart body. */
  form?: FormData;
  scope: ApiScope;
  user?: PlatformUser;
  /** Extra headers (create file's `Accept-Language`). */
  headers?: Record<string, string>;
}

/** A 2xx answer: its status, its text and the JSON in it (undefined when empty or not JSON). */
export interface PlatformAnswer {
  /** `POST /sdk/v2/api/files`, for messages (never the query: it holds the signature and token). */
  call: string;
  status: number;
  text: string;
  body: unknown;
}

export interface PlatformTransportOptions {
  /** PLATFORM_API_URL, without a trailing slash. */
  apiUrl: string;
  credentials: AppCredentials;
  /** HEADER_BRAND: `X-{brand}-Signature`, `X-{brand}-Token`. */
  brand?: string;
  /** The `version` claim of every signature (PLATFORM_CALLBACK_VERSION); absent = no claim. */
  callbackVersion?: string;
  /** Whole-call limit (connect, send, answer); default 10 s. */
  timeoutMs?: number;
}

export const DEFAULT_PLATFORM_TIMEOUT_MS = 10_000;

/**
 * Sends requests to the platform API with the credentials in both forms the sources use
 * (platform-api.md section 2): the query parameters of the interface document (`appId`, `signature`,
 * `token`) and the headers of the platform's kit (`X-{brand}-Signature`, `X-{brand}-Token`,
 * `X-Weboffice-Token`, `X-Weboffice-User-Uuid`). A fresh signature per call, never a hang, and every
 * non-2xx answer an error that quotes the platform's status and body. Nothing here logs.
 */
export class PlatformTransport {
  readonly timeoutMs: number;
  private readonly brand: string;

  constructor(private readonly options: PlatformTransportOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_PLATFORM_TIMEOUT_MS;
    this.brand = options.brand ?? 'Platform';
  }

  get apiUrl(): string {
    return this.options.apiUrl;
  }

  get appId(): string {
    return this.options.credentials.appId;
  }

  async send(request: PlatformRequest): Promise<PlatformAnswer> {
    const call = `${request.method} ${request.path}`;
    const url = new URL(`${this.options.apiUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value === undefined) continue;
      for (const item of typeof value === 'object' ? value : [value]) url.searchParams.append(name, String(item));
    }
    const signature = mintApiSignature(this.options.credentials, request.scope, {
      ...(this.options.callbackVersion === undefined ? {} : { version: this.options.callbackVersion }),
    });
    url.searchParams.set('appId', this.options.credentials.appId);
    url.searchParams.set('signature', signature);
    if (request.user) url.searchParams.set('token', request.user.token);

    const headers: Record<string, string> = { accept: 'application/json', ...request.headers, [`X-${this.brand}-Signature`]: signature };
    if (request.user) {
      headers[`X-${this.brand}-Token`] = request.user.token;
      headers['X-Weboffice-Token'] = request.user.token;
      if (request.user.uuid !== undefined) headers['X-Weboffice-User-Uuid'] = request.user.uuid;
    }
    let body: string | FormData | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    } else if (request.form) {
      body = request.form; // fetch sets the multipart content type with its boundary
    }

    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { method: request.method, headers, body, redirect: 'error', signal: AbortSignal.timeout(this.timeoutMs) });
      // The body is read under the same time limit: a platform that sends headers then stalls still ends.
      text = await response.text();
    } catch (error) {
      if (isTimeout(error)) throw new PlatformError('timeout', `the platform did not answer ${call} within ${this.timeoutMs} ms`);
      throw new PlatformError('unreachable', `could not reach the platform for ${call} at ${this.options.apiUrl}: ${networkReason(error)}`);
    }
    if (response.status < 200 || response.status > 299) throw refusal(call, response.status, text);
    return { call, status: response.status, text, body: parseJson(text) };
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** The most specific reason Node gives for a failed fetch (ECONNREFUSED, ENOTFOUND, …). */
function networkReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return error instanceof Error ? error.message : String(error);
}
