import { mintLicenseSignature, type AppCredentials } from '../auth/platform-signature.js';
import { describePlatformRefusal, parsePlatformErrorBody, PlatformError } from './platform-errors.js';

/** The part of the platform's API collab-host calls (callback-interface.md 4.8). */
export interface PlatformApi {
  /**
   * Creates a collaborative document. Resolves when the platform answers 2xx (it answers 204);
   * rejects with a PlatformError otherwise. `token` is the creator's user token: the platform sends it
   * back in `X-{brand}-Token` on the callbacks of this document.
   */
  createDocument(request: { fileId: string; type: string; token: string }): Promise<void>;
}

export interface PlatformClientOptions {
  /** PLATFORM_API_URL, without a trailing slash. */
  apiUrl: string;
  credentials: AppCredentials;
  /** Whole-call limit (connect, send, answer); default 10 s. */
  timeoutMs?: number;
}

export const DEFAULT_PLATFORM_TIMEOUT_MS = 10_000;

/** The platform API over HTTP: a fresh license-scope signature for every call, never a hang. */
export class PlatformClient implements PlatformApi {
  private readonly timeoutMs: number;

  constructor(private readonly options: PlatformClientOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_PLATFORM_TIMEOUT_MS;
  }

  async createDocument(request: { fileId: string; type: string; token: string }): Promise<void> {
    const url = new URL(`${this.options.apiUrl}/sdk/v2/api/files`);
    url.searchParams.set('appId', this.options.credentials.appId);
    // License signatures are single use: one per call, never cached.
    url.searchParams.set('signature', mintLicenseSignature(this.options.credentials));
    url.searchParams.set('token', request.token);
    await this.send(url, { type: request.type, fileId: request.fileId });
  }

  private async send(url: URL, body: unknown): Promise<void> {
    const where = `${url.origin}${url.pathname}`; // never the query: it holds the signature and token
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      // The body is read under the same time limit: a platform that sends headers then stalls still ends.
      text = await response.text();
    } catch (error) {
      if (isTimeout(error)) {
        throw new PlatformError('timeout', `the platform did not answer ${where} within ${this.timeoutMs} ms`);
      }
      throw new PlatformError('unreachable', `could not reach the platform at ${where}: ${networkReason(error)}`);
    }
    if (response.ok) return;
    const { code, message } = parsePlatformErrorBody(text);
    throw new PlatformError('refused', describePlatformRefusal(response.status, code, message), response.status, code);
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
