import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call the stand-in received. */
export interface ReceivedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: unknown;
}

/** How the stand-in answers the next call. */
export type Answer =
  | { kind: 'created' }
  | { kind: 'error'; status: number; body: unknown }
  | { kind: 'hang' };

/**
 * A stand-in for the platform's API on a real socket (port 0): records every call and answers as told
 * (204 by default). `hang` never answers, to prove the client's time-out.
 */
export class StandInPlatform {
  readonly calls: ReceivedCall[] = [];
  private answers: Answer[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private server: Server | undefined;
  url = '';

  /** Queues answers for the next calls; when the queue is empty the stand-in answers 204. */
  answerNext(...answers: Answer[]): void {
    this.answers.push(...answers);
  }

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) response.destroy();
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
    this.calls.push({ method: request.method ?? '', path: url.pathname, query: url.searchParams, contentType: request.headers['content-type'], body });
    const answer = this.answers.shift() ?? { kind: 'created' };
    if (answer.kind === 'hang') {
      this.hanging.add(response);
      return;
    }
    if (answer.kind === 'created') {
      response.writeHead(204).end();
      return;
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
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
