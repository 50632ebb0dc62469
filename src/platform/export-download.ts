import { PlatformError } from './platform-errors.js';

/** The largest export collab-host keeps (the database holds the bytes until FileStorage lands). */
export const MAX_EXPORT_BYTES = 100 * 1024 * 1024;
export const EXPORT_DOWNLOAD_TIMEOUT_MS = 60_000;

/**
 * Fetches an exported file from the platform's `downloadUrl`: http(s) only, no credentials sent (the
 * address is a capability of its own), bounded in time and size.
 */
export async function downloadExport(url: string, options: { timeoutMs?: number; maxBytes?: number } = {}): Promise<Buffer> {
  if (!/^https?:\/\//i.test(url)) throw new PlatformError('unexpected', `the export's downloadUrl is not http(s): ${url.slice(0, 100)}`);
  const where = new URL(url);
  const shown = `${where.origin}${where.pathname}`; // its query may hold a signature
  const timeoutMs = options.timeoutMs ?? EXPORT_DOWNLOAD_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? MAX_EXPORT_BYTES;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const timeout = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new PlatformError(timeout ? 'timeout' : 'unreachable', `could not fetch the export from ${shown}: ${timeout ? `no answer within ${timeoutMs} ms` : String((error as Error).message)}`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new PlatformError('refused', `fetching the export from ${shown} answered HTTP ${response.status}`, response.status);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).length;
    if (size > maxBytes) throw new PlatformError('unexpected', `the export at ${shown} is larger than ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk as Uint8Array));
  }
  return Buffer.concat(chunks);
}
