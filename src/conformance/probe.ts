import { brandHeaders, type BrandHeaders } from './headers.js';
import { callHttp, type HttpAnswer, type HttpRequest } from './http-client.js';
import { platformSignature, type AppCredentials } from './jwt.js';

/** What the kit is pointed at and with which credentials. */
export interface KitOptions {
  /** The callback server's base URL ({base_url}). */
  baseUrl: string;
  /** A user token the server accepts in `X-Platform-Token`. */
  token: string;
  /** The application's credentials: enable the signed checks and signed events. */
  credentials?: AppCredentials;
  /** The collaborative document to examine; discovered through `GET /files` when absent. */
  fileId?: string;
  /** Header brand (`Platform`, or `Shimo` for the production platform's spelling). */
  brand?: string;
  /** Time-out of each request. */
  timeoutMs?: number;
  /**
   * collab-host's ADMIN_API_KEY: the `production` checks then also find each pushed event in
   * `GET /api/events` (stored, not only acknowledged). Sent only to that listing.
   */
  adminKey?: string;
  /**
   * A guest's token (a share link's, e.g. collab-host's `POST /share-links/{code}/token`): the `guests`
   * check then holds it to one file and no directory member.
   */
  guestToken?: string;
}

/**
 * The kit's side of the wire, acting as the platform: user-context calls carry the token, signed calls a
 * fresh signature. Reads made with the token are remembered for the run, so checks that look at the same
 * endpoint share one request.
 */
export class Probe {
  readonly headers: BrandHeaders;
  private readonly reads = new Map<string, Promise<HttpAnswer>>();

  constructor(readonly options: KitOptions) {
    this.headers = brandHeaders(options.brand);
  }

  /** A read as the token's user (GET, or a POST that only reads such as `/search`); cached for the run. */
  read(path: string, request: HttpRequest = {}): Promise<HttpAnswer> {
    const key = `${request.method ?? 'GET'} ${path} ${JSON.stringify(request.body ?? null)}`;
    let answer = this.reads.get(key);
    if (!answer) {
      answer = this.asUser(path, request);
      this.reads.set(key, answer);
      // A failed request is not remembered: the next check asks again and reports for itself.
      answer.catch(() => this.reads.delete(key));
    }
    return answer;
  }

  /** A call as the token's user, never cached. */
  asUser(path: string, request: HttpRequest = {}): Promise<HttpAnswer> {
    return this.withToken(this.options.token, path, request);
  }

  withToken(token: string, path: string, request: HttpRequest = {}): Promise<HttpAnswer> {
    return this.call(path, { ...request, headers: { [this.headers.token]: token, ...request.headers } });
  }

  /** A platform-signed call (credential type 3) with a signature bound to `claims`. */
  signed(credentials: AppCredentials, claims: { fileId?: string; userId?: string }, path: string, request: HttpRequest = {}): Promise<HttpAnswer> {
    return this.call(path, {
      ...request,
      headers: {
        [this.headers.credentialType]: '3',
        [this.headers.signature]: platformSignature(credentials, claims),
        [this.headers.appId]: credentials.appId,
        ...request.headers,
      },
    });
  }

  /** A call with exactly the given headers. */
  call(path: string, request: HttpRequest = {}): Promise<HttpAnswer> {
    return callHttp(this.options.baseUrl, path, request, this.options.timeoutMs);
  }
}

/** Query string of defined values, `?a=1&b=x`, or '' when empty. */
export function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** A path segment, escaped. */
export const seg = (value: string): string => encodeURIComponent(value);
