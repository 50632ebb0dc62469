import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppCredentials } from '../jwt.js';
import { openInEditor, renderEditorPage } from './editor-page.js';
import { SIMULATOR_ERRORS, SimulatedPlatform, type ApiAnswer } from './platform-api.js';

export interface SimulatorOptions {
  port?: number;
  host?: string;
  /** The application the simulated platform knows (APP_ID / APP_SECRET of the integrator). */
  credentials: AppCredentials;
  /** The application's callback address (`endpoint_url`): where the editor page calls back. */
  endpointUrl?: string;
  brand?: string;
  now?: () => number;
}

export interface RunningSimulator {
  url: string;
  platform: SimulatedPlatform;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;

/**
 * The simulator's HTTP server (node:http only): the platform API's create and delete, a list of created
 * files, and the editor page. Binds 127.0.0.1 by default: it is a local development tool.
 */
export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const platform = new SimulatedPlatform(options.credentials, options.now);

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://simulator');
    const method = request.method ?? 'GET';
    const q = (name: string) => url.searchParams.get(name);
    const fileMatch = /^\/sdk\/v2\/api\/files\/([^/]+)$/.exec(url.pathname);

    if (method === 'POST' && url.pathname === '/sdk/v2/api/files') {
      const body = await readJson(request);
      const answer = body === INVALID ? invalidBody() : platform.createFile({ appId: q('appId'), signature: q('signature'), token: q('token') }, body);
      return sendApi(response, answer);
    }
    if (method === 'DELETE' && fileMatch) {
      return sendApi(response, platform.deleteFile(decodeURIComponent(fileMatch[1] as string), { appId: q('appId'), signature: q('signature') }));
    }
    if (method === 'GET' && url.pathname === '/simulator/files') {
      const files = [...platform.files.values()].map(({ fileId, type, createdAt }) => ({ fileId, type, createdAt }));
      return sendJson(response, 200, { files });
    }
    if (method === 'GET' && url.pathname === '/editor') {
      const fileId = q('fileId') ?? '';
      const created = platform.files.get(fileId);
      const view = await openInEditor({
        endpoint: q('endpoint') || options.endpointUrl,
        fileId,
        token: q('token') || created?.token || '',
        ...(options.brand ? { brand: options.brand } : {}),
      });
      if (!created && fileId) view.notice = `file "${fileId}" was not created through this simulator; the real platform would not know it (70013)`;
      response.writeHead(view.error ? 400 : 200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(renderEditorPage(view));
      return;
    }
    if (method === 'GET' && url.pathname === '/') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(indexPage(platform, options.endpointUrl));
      return;
    }
    sendJson(response, 404, { code: 404, message: `no route ${method} ${url.pathname}` });
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { code: 500, message: error instanceof Error ? error.message : 'simulator error' });
      else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    platform,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const INVALID = Symbol('invalid body');

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return INVALID;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return INVALID;
  }
}

function invalidBody(): ApiAnswer {
  const { status, code } = SIMULATOR_ERRORS.badParameters;
  return { status, body: { code, message: 'the body must be JSON { type, fileId }' } };
}

function sendApi(response: ServerResponse, answer: ApiAnswer): void {
  if ('body' in answer) return sendJson(response, answer.status, answer.body);
  response.writeHead(answer.status);
  response.end();
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function indexPage(platform: SimulatedPlatform, endpointUrl: string | undefined): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const rows = [...platform.files.values()]
    .map((f) => `<li><a href="/editor?fileId=${encodeURIComponent(f.fileId)}">${escape(f.fileId)}</a> (${escape(f.type)}, ${escape(f.createdAt)})</li>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>collab-host simulator</title></head>
<body style="font: 15px/1.5 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto">
<h1>collab-host platform simulator</h1>
<p>Callback server (endpoint_url): <code>${escape(endpointUrl ?? 'not configured: pass --endpoint-url or ?endpoint=')}</code></p>
<h2>Documents created here</h2><ul>${rows || '<li><em>none yet: run collab-host create-doc with PLATFORM_API_URL set to this simulator</em></li>'}</ul>
<h2>Open a file</h2>
<form action="/editor"><label>fileId <input name="fileId"></label> <label>token <input name="token"></label>
<label>endpoint <input name="endpoint" value="${escape(endpointUrl ?? '')}"></label> <button>open</button></form>
</body></html>
`;
}
