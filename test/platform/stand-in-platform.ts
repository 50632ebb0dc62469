import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call the stand-in received. */
export interface ReceivedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  contentType: string | undefined;
  /** JSON when it parses, else the text (multipart bodies stay text). */
  body: unknown;
}

/** How the stand-in answers the next call. */
export type Answer = { kind: 'created' } | { kind: 'json'; status: number; body: unknown } | { kind: 'error'; status: number; body: unknown } | { kind: 'hang' };

export interface StandInOptions {
  /**
   * Accept credentials only as headers, as the platform's kit sends them: a call without
   * `X-{brand}-Signature` is answered 401, whatever its query says.
   */
  headerCredentialsOnly?: boolean;
  brand?: string;
}

/**
 * A stand-in for the platform's API on a real socket (port 0): records every call and answers as told
 * (204 by default). `hang` holds the call until `release()`, so a test can look at what happens while
 * the platform works, then end it, without waiting on the clock.
 */
export class StandInPlatform {
  readonly calls: ReceivedCall[] = [];
  private answers: Answer[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private arrivals: Array<() => void> = [];
  private server: Server | undefined;
  url = '';

  constructor(private readonly options: StandInOptions = {}) {}

  /** Queues answers for the next calls; when the queue is empty the stand-in answers 204. */
  answerNext(...answers: Answer[]): void {
    this.answers.push(...answers);
  }

  /** Resolves when the next call arrives (or at once for a call already held). */
  nextArrival(): Promise<void> {
    return new Promise((resolve) => this.arrivals.push(resolve));
  }

  /** Ends every held call: `drop` closes its connection (the client sees a network failure). */
  release(): void {
    for (const response of this.hanging) response.destroy();
    this.hanging.clear();
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.release();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://stand-in');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // kept as text
    }
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    this.calls.push({ method: request.method ?? '', path: url.pathname, query: url.searchParams, headers, contentType: request.headers['content-type'], body });
    for (const arrived of this.arrivals.splice(0)) arrived();

    const signatureHeader = `x-${(this.options.brand ?? 'Platform').toLowerCase()}-signature`;
    if (this.options.headerCredentialsOnly && !headers[signatureHeader]) {
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 401, message: `${signatureHeader} is required` }));
      return;
    }
    const answer = this.answers.shift() ?? { kind: 'created' };
    if (answer.kind === 'hang') {
      this.hanging.add(response);
      return;
    }
    if (answer.kind === 'created') {
      response.writeHead(204).end();
      return;
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
  }
}

/** A port on which nothing listens (bound, then closed). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** Decodes a compact JWT without checking it (the tests check it with the real verifier). */
export function decodeJwt(token: string): { header: Record<string, unknown>; claims: Record<string, unknown> } {
  const [head, body] = token.split('.') as [string, string];
  return {
    header: JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as Record<string, unknown>,
    claims: JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>,
  };
}
