import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature } from '../../src/events/webhook-signature.js';

export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: { id: string; type: string; occurredAt: string; data: Record<string, unknown> };
  /** Whether X-Collab-Signature is the HMAC of the raw body with the secret, checked as a receiver would. */
  signatureValid: boolean;
  status: number;
  at: number;
}

/**
 * A notification receiver on a real socket (port 0). `respond` picks the status for each request (by
 * default 200); `delayMs` holds the answer back (for time-outs).
 */
export async function startReceiver(secret: string) {
  const received: Received[] = [];
  const state = {
    respond: (_body: Received['body'], _attempt: number): number => 200,
    delayMs: 0,
    /** While set, answers wait for it (a request accepted, its answer not yet back: a kill's moment). */
    hold: undefined as Promise<void> | undefined,
  };
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      const body = JSON.parse(raw) as Received['body'];
      const attempt = received.filter((r) => r.body.id === body.id).length + 1;
      const status = state.respond(body, attempt);
      const signature = request.headers['x-collab-signature'];
      received.push({
        headers: request.headers,
        raw,
        body,
        signatureValid: verifyWebhookSignature(raw, typeof signature === 'string' ? signature : undefined, secret),
        status,
        at: Date.now(),
      });
      const hold = state.hold ?? Promise.resolve();
      setTimeout(() => {
        void hold.then(() => {
          response.statusCode = status;
          response.end('ok');
        });
      }, state.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    state,
    forNotification: (id: string) => received.filter((r) => r.body.id === id),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `check` until it returns a value (not undefined) or `timeoutMs` passes. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
