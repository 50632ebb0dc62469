import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppCredentials } from '../jwt.js';
import { openInEditor, renderEditorPage } from './editor-page.js';
import { SIMULATOR_ERRORS, SimulatedPlatform, type SimAnswer } from './platform-api.js';

export interface SimulatorOptions {
  port?: number;
  host?: string;
  /** The application the simulated platform knows (APP_ID / APP_SECRET of the integrator). */
  credentials: AppCredentials;
  /** The application's callback address (`endpoint_url`): where the editor page calls back. */
  endpointUrl?: string;
  brand?: string;
  now?: () => number;
  /** Licensed seats (default 100). */
  memberLimit?: number;
}

export interface RunningSimulator {
  url: string;
  platform: SimulatedPlatform;
  close(): Promise<void>;
}

/** Uploads and imports may carry a file; JSON bodies are small. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * The simulator's HTTP server (node:http only): every call of the platform API (platform-api.ts), the
 * files it serves (exports), the editor page, and a few `/simulator/…` pages of its own. Binds 127.0.0.1
 * by default: it is a local development tool.
 */
export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const platform = new SimulatedPlatform(options.credentials, {
    ...(options.now ? { now: options.now } : {}),
    ...(options.brand ? { brand: options.brand } : {}),
    ...(options.endpointUrl ? { endpointUrl: options.endpointUrl } : {}),
    ...(options.memberLimit !== undefined ? { memberLimit: options.memberLimit } : {}),
  });
  const { world } = platform;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://simulator');
    const method = request.method ?? 'GET';
    const q = (name: string) => url.searchParams.get(name);

    if (platform.knows(url.pathname)) {
      const body = await readBody(request, url);
      if (body === INVALID) return sendJson(response, 400, { code: SIMULATOR_ERRORS.badParameters.code, message: 'the body is not valid JSON or multipart, or is too large' });
      return send(response, platform.handle({ method, path: url.pathname, query: url.searchParams, headers: lowerCaseHeaders(request), ...body }));
    }
    const download = /^\/simulator\/downloads\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && download) {
      const stored = world.downloads.get(decodeURIComponent(download[1] as string));
      if (!stored) return sendJson(response, 404, { code: 404, message: 'no such download' });
      response.writeHead(200, { 'content-type': stored.contentType, 'content-length': stored.bytes.length });
      response.end(stored.bytes);
      return;
    }
    const content = /^\/simulator\/files\/([^/]+)$/.exec(url.pathname);
    if (method === 'PUT' && content) {
      const body = await readBody(request, url);
      return send(response, platform.setContent(decodeURIComponent(content[1] as string), body === INVALID ? undefined : body.json));
    }
    if (method === 'GET' && url.pathname === '/simulator/files') {
      const files = [...platform.files.values()].map(({ fileId, type, createdAt }) => ({ fileId, type, createdAt }));
      return sendJson(response, 200, { files });
    }
    if (method === 'GET' && url.pathname === '/simulator/seats') {
      return sendJson(response, 200, { seats: [...world.seats.entries()].map(([userId, seat]) => ({ userId, ...seat })) });
    }
    if (method === 'GET' && url.pathname === '/editor') {
      const fileId = q('fileId') ?? '';
      const created = platform.files.get(fileId);
      // Only the application's own endpoint_url is called: the page is no relay to any address it is given.
      const asked = q('endpoint')?.replace(/\/+$/, '');
      const view =
        asked && asked !== world.app.endpointUrl
          ? {
              fileId,
              endpoint: world.app.endpointUrl,
              calls: [],
              error: `endpoint ${asked} is not this application's endpoint_url: the editor calls back only ${world.app.endpointUrl ?? 'the configured address (none is configured)'}`,
            }
          : await openInEditor({
              endpoint: world.app.endpointUrl,
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
      response.end(indexPage(platform, world.app.endpointUrl));
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
  world.baseUrl = `http://${host}:${address.port}`;
  return {
    url: world.baseUrl,
    platform,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const INVALID = Symbol('invalid body');

/** The body as JSON or multipart form data; `{}` when there is none. */
async function readBody(request: IncomingMessage, url: URL): Promise<{ json?: unknown; form?: FormData } | typeof INVALID> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return INVALID;
    chunks.push(chunk as Buffer);
  }
  const bytes = Buffer.concat(chunks);
  if (bytes.length === 0) return {};
  const type = request.headers['content-type'] ?? '';
  try {
    if (type.startsWith('multipart/form-data')) {
      return { form: await new Request(url, { method: 'POST', headers: { 'content-type': type }, body: bytes }).formData() };
    }
    return { json: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    return INVALID;
  }
}

function lowerCaseHeaders(request: IncomingMessage): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>; // the request's names are its keys
  for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = Array.isArray(value) ? value[0] : value;
  return headers;
}

function send(response: ServerResponse, answer: SimAnswer): void {
  if (answer.text !== undefined) {
    response.writeHead(answer.status, { 'content-type': answer.contentType ?? 'text/plain; charset=utf-8' });
    response.end(answer.text);
    return;
  }
  if (answer.body !== undefined) return sendJson(response, answer.status, answer.body);
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
<p>Callback server (endpoint_url): <code>${escape(endpointUrl ?? 'not configured: pass --endpoint-url, or PUT /sdk/v2/api/license/apps/{appId}/endpoint-url')}</code></p>
<h2>Documents created here</h2><ul>${rows || '<li><em>none yet: run collab-host create-doc with PLATFORM_API_URL set to this simulator</em></li>'}</ul>
<p>Seats: <a href="/simulator/seats">/simulator/seats</a>; documents as JSON: <a href="/simulator/files">/simulator/files</a></p>
<h2>Open a file</h2>
<form action="/editor"><label>fileId <input name="fileId"></label> <label>token <input name="token"></label> <button>open</button></form>
</body></html>
`;
}
