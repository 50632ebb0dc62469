import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { PlatformError } from './platform-errors.js';

export const EXPORT_DOWNLOAD_TIMEOUT_MS = 60_000;

/** An export being fetched: its bytes as they arrive, and the size the platform announced (Content-Length). */
export interface ExportDownload {
  body: Readable;
  declaredSize?: number;
}

/**
 * Fetches an exported file from the platform's `downloadUrl`: http(s) only, no credentials sent (the
 * address is a capability of its own), bounded in time. The bytes are streamed to the file storage, which
 * bounds their size (FILE_MAX_SIZE) as for an upload.
 */
export async function downloadExport(url: string, options: { timeoutMs?: number } = {}): Promise<ExportDownload> {
  if (!/^https?:\/\//i.test(url)) throw new PlatformError('unexpected', `the export's downloadUrl is not http(s): ${url.slice(0, 100)}`);
  const where = new URL(url);
  const shown = `${where.origin}${where.pathname}`; // its query may hold a signature
  const timeoutMs = options.timeoutMs ?? EXPORT_DOWNLOAD_TIMEOUT_MS;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const timeout = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new PlatformError(
      timeout ? 'timeout' : 'unreachable',
      `could not fetch the export from ${shown}: ${timeout ? `no answer within ${timeoutMs} ms` : String((error as Error).message)}`,
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new PlatformError('refused', `fetching the export from ${shown} answered HTTP ${response.status}`, response.status);
  }
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  return {
    body: response.body ? Readable.fromWeb(response.body as WebReadableStream<Uint8Array>) : Readable.from([]),
    ...(Number.isSafeInteger(length) && length >= 0 ? { declaredSize: length } : {}),
  };
}
