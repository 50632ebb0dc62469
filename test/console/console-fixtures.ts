import { mkdtemp } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { build } from 'vite';
import { mintSignature } from '../../src/auth/platform-signature.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { TEST_CONFIG_OVERRIDES } from '../helpers/app.js';

/** Builds the console's front end from console/ into a fresh temporary folder (what the tests serve). */
export async function buildConsoleInto(): Promise<string> {
  const outDir = await mkdtemp(join(tmpdir(), 'console-build-'));
  await build({ configFile: 'console/vite.config.ts', build: { outDir, emptyOutDir: true }, logLevel: 'error' });
  return outDir;
}

/** A notification receiver on a real socket: answers `status` (changeable), counts what it got. */
export async function startHookReceiver(initialStatus: number) {
  const state = { status: initialStatus, received: [] as Array<{ id: string; type: string; answered: number }> };
  const server: Server = createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (raw += chunk));
    request.on('end', () => {
      const body = JSON.parse(raw) as { id: string; type: string };
      state.received.push({ id: body.id, type: body.type, answered: state.status });
      response.statusCode = state.status;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const APP = { appId: TEST_CONFIG_OVERRIDES.appId as string, appSecret: TEST_CONFIG_OVERRIDES.appSecret as string };

/** Pushes one event as the platform would (user token or platform signature), expecting `status`. */
async function push(app: FastifyInstance, kind: string, body: Record<string, unknown>, credential: 'token' | 'signature', status = 200): Promise<void> {
  const headers: Record<string, string> =
    credential === 'token'
      ? { 'x-platform-token': mintUserToken(String(body.userId), TEST_CONFIG_OVERRIDES.tokenSecret as string, 3600) }
      : { 'x-platform-credential-type': '3', 'x-platform-signature': mintSignature(APP, { ttlSeconds: 240, fileId: String(body.fileId) }) };
  const response = await app.inject({
    method: 'POST',
    url: '/events',
    headers: { 'content-type': 'application/json', 'x-platform-sdk-event': kind, ...headers },
    payload: JSON.stringify(body),
  });
  if (response.statusCode !== status) throw new Error(`${kind} event answered ${response.statusCode}: ${response.body}`);
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Some activity on the demo company: a comment by 张三 on the quarterly plan (a `comment.created`
 * notification), a reminder due ten minutes ago (late: no scheduler runs in the test) and one due in an
 * hour, 张三 with the plan open in one browser tab, and a comment by Alice, who may only view the plan
 * (refused).
 */
export async function demoActivity(app: FastifyInstance, now = Date.now()): Promise<void> {
  const file = 'plan-2024q3';
  await push(
    app,
    'Comment',
    { kind: 'comment', type: 'comment', action: 'create', fileId: file, userId: 'zhangsan', comment: { guid: 'c-1', content: '请大家周五前看完 Q3 计划' } },
    'token',
  );
  for (const [id, minutes, content] of [
    ['r-late', -10, '提交季度总结'],
    ['r-soon', 60, '评审 Q3 预算'],
  ] as const) {
    const createData = { id, fileId: file, authorId: 'zhangsan', content, remindUserIds: ['lisi'], remindAt: iso(now + minutes * 60_000) };
    await push(app, 'DateMention', { kind: 'mention', type: 'date_mention', action: 'create', fileId: file, userId: 'zhangsan', createData }, 'token');
  }
  await push(
    app,
    'Collaborator',
    { kind: 'collaborator', action: 'enter', fileId: file, userId: 'zhangsan', collaboratorChanged: { clientId: 'tab-1', timestamp: now } },
    'signature',
  );
  // Alice may only view the plan: her comment is refused (403) and kept aside with its reason.
  await push(app, 'Comment', { kind: 'comment', type: 'comment', action: 'create', fileId: file, userId: 'alice', comment: { guid: 'c-2', content: '我也想评论' } }, 'token', 403);
}

/**
 * Until the app's own processor has derived the effects of every acknowledged event (on PostgreSQL they
 * run in lanes behind the acknowledgement): a test then reads the notifications they made.
 */
export async function untilEventsProcessed(store: OpenDatabase, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    const { n } = await store.db
      .selectFrom('events')
      .select(({ fn }) => fn.countAll<number>().as('n'))
      .where('outcome', '=', 'pending')
      .executeTakeFirstOrThrow();
    if (Number(n) === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} events still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
