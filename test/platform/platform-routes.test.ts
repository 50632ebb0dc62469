import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import { openDatabase, type OpenDatabase } from '../../src/store/connection/database.js';
import { sqlSeatTasks } from '../../src/store/platform/seat-tasks.js';
import { asUser, buildTestApp, TEST_CONFIG_OVERRIDES } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { StandInPlatform } from './stand-in-platform.js';

const ADMIN_API_KEY = 'admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_API_KEY}` };
const APP = { appId: TEST_CONFIG_OVERRIDES.appId as string, appSecret: TEST_CONFIG_OVERRIDES.appSecret as string };

describeEachStore('/api/platform against collab-host simulate', (store) => {
  let sim: RunningSimulator;
  let app: FastifyInstance;
  const api = (options: InjectOptions) => app.inject({ ...options, headers: { ...admin, ...options.headers } });

  beforeAll(async () => {
    sim = await startSimulator({ credentials: APP, memberLimit: 5 });
    await seedDirectory(store().db);
    app = await buildTestApp(store(), { adminApiKey: ADMIN_API_KEY, platformApiUrl: sim.url });
    // Two documents made through collab-host, so the platform knows them.
    for (const [fileId, userId, type] of [
      ['doc-a', 'zhang', 'document'],
      ['doc-b', 'lilei', 'documentPro'],
    ] as const) {
      expect((await api({ method: 'POST', url: '/api/documents', payload: { userId, type, name: fileId, fileId } })).statusCode).toBe(201);
    }
  });
  afterAll(async () => {
    await app.close();
    await sim.close();
  });

  it('copies a document into a new one the user owns, if the user may copy it', async () => {
    const copy = await api({ method: 'POST', url: '/api/platform/files/doc-a/copy', payload: { userId: 'zhang', fileId: 'doc-a-copy' } });
    expect(copy.statusCode).toBe(201);
    expect(copy.json()).toMatchObject({ id: 'doc-a-copy', name: 'doc-a (copy)', type: 'document', creatorId: 'zhang', permissions: { manageable: true } });
    expect(sim.platform.files.get('doc-a-copy')?.type).toBe('document');
    const notAllowed = await api({ method: 'POST', url: '/api/platform/files/doc-a/copy', payload: { userId: 'olga' } });
    expect(notAllowed.statusCode).toBe(403);
    expect(notAllowed.json().error).toEqual({ code: 'not_allowed', message: 'user olga is not copyable on file doc-a' });
    expect((await api({ method: 'POST', url: '/api/platform/files/nope/copy', payload: { userId: 'zhang' } })).statusCode).toBe(404);
  });

  it('deletes a document on the platform and here, only for a user who may manage it', async () => {
    expect((await api({ method: 'DELETE', url: '/api/platform/files/doc-a-copy?userId=lilei' })).statusCode).toBe(403);
    const deleted = await api({ method: 'DELETE', url: '/api/platform/files/doc-a-copy' });
    expect(deleted.statusCode).toBe(204);
    expect(sim.platform.files.has('doc-a-copy')).toBe(false);
    expect((await app.inject({ method: 'GET', url: '/files/doc-a-copy', headers: asUser('zhang') })).statusCode).toBe(404);
  });

  it('imports into a pending document that becomes active when the task is done', async () => {
    const started = await api({
      method: 'POST',
      url: '/api/platform/imports',
      payload: { userId: 'lilei', type: 'spreadsheet', fileUrl: 'https://files.example.com/q3.xlsx', fileName: 'q3.xlsx', fileId: 'q3', version: 2 },
    });
    expect(started.statusCode).toBe(202);
    const { taskId } = started.json();
    expect(started.json()).toEqual({ taskId, fileId: 'q3', status: 'running', progress: 0 });
    expect((await app.inject({ method: 'GET', url: '/files/q3', headers: asUser('lilei') })).statusCode).toBe(404);
    expect((await api({ method: 'GET', url: `/api/platform/imports/${taskId}` })).json()).toMatchObject({ status: 'running', progress: 50 });
    expect((await api({ method: 'GET', url: `/api/platform/imports/${taskId}` })).json()).toMatchObject({ status: 'done', progress: 100 });
    const seen = await app.inject({ method: 'GET', url: '/files/q3', headers: asUser('lilei') });
    expect(seen.json()).toMatchObject({ id: 'q3', name: 'q3.xlsx', type: 'spreadsheet', creatorId: 'lilei' });
    const wrongKind = await api({ method: 'POST', url: '/api/platform/imports', payload: { userId: 'lilei', type: 'document', fileUrl: 'https://x/a.xlsx', fileName: 'a.xlsx' } });
    expect(wrongKind.statusCode).toBe(400);
    expect(wrongKind.json().error.message).toBe('a document imports docx, doc, md, txt files, not "a.xlsx"');
    expect((await api({ method: 'GET', url: '/api/platform/imports/unknown' })).statusCode).toBe(404);
  });

  it('exports a document and keeps the exported bytes as a third-party file of the user who asked', async () => {
    await fetch(`${sim.url}/simulator/files/doc-b`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"text":"合同正文"}' });
    expect((await api({ method: 'POST', url: '/api/platform/files/doc-b/exports', payload: { format: 'md' } })).statusCode).toBe(400);
    const started = await api({ method: 'POST', url: '/api/platform/files/doc-b/exports', payload: { format: 'pdf' } });
    expect(started.statusCode).toBe(202);
    const { taskId } = started.json();
    expect((await api({ method: 'GET', url: `/api/platform/exports/${taskId}` })).json()).toMatchObject({ status: 'running', progress: 50 });
    const done = (await api({ method: 'GET', url: `/api/platform/exports/${taskId}` })).json();
    expect(done).toMatchObject({ status: 'done', progress: 100, format: 'pdf', fileId: 'doc-b', exportFileId: expect.stringMatching(/^export-[0-9a-f]{32}$/) });
    // Polling again answers the same file, made once.
    expect((await api({ method: 'GET', url: `/api/platform/exports/${taskId}` })).json()).toEqual(done);
    const file = await app.inject({ method: 'GET', url: `/files/${done.exportFileId}`, headers: asUser('lilei') });
    expect(file.json()).toMatchObject({ name: 'doc-b.pdf', type: 'file', permissions: { readable: true } });
    expect((await store().db.selectFrom('files').select('creator_id').where('id', '=', done.exportFileId).executeTakeFirstOrThrow()).creator_id).toBe('lilei');
    const content = await store().db.selectFrom('file_contents').select(['content', 'content_type']).where('file_id', '=', done.exportFileId).executeTakeFirstOrThrow();
    expect(Buffer.from(content.content).toString('utf8')).toBe('simulated pdf export of doc-b\n合同正文');
    expect(content.content_type).toBe('application/pdf');
  });

  it('reads history, comment count and mentions for a user who may read the document', async () => {
    await fetch(`${sim.url}/simulator/files/doc-b`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ comments: 3, mentions: [{ userId: 'zhang', atGuid: 'g1' }] }),
    });
    expect((await api({ method: 'GET', url: '/api/platform/files/doc-b/comment-count' })).json()).toEqual({ count: 3 });
    expect((await api({ method: 'GET', url: '/api/platform/files/doc-b/mentions?userId=lilei' })).json()).toEqual({ mentionAtList: [{ userId: 'zhang', atGuid: 'g1' }] });
    const history = await api({ method: 'GET', url: '/api/platform/files/doc-b/history?pageSize=5&historyType=2' });
    expect(history.json()).toMatchObject({ histories: [{ name: 'created', historyType: 2 }], isLastPage: true, limit: 5 });
    expect((await api({ method: 'GET', url: '/api/platform/files/doc-b/history?userId=olga' })).statusCode).toBe(403);
    expect((await api({ method: 'GET', url: '/api/platform/files/doc-b/history?historyType=3' })).statusCode).toBe(400);
  });

  it('answers app details and changes the callback address', async () => {
    expect((await api({ method: 'PUT', url: '/api/platform/app/endpoint-url', payload: { url: 'https://oa.example.com/callback' } })).statusCode).toBe(204);
    expect((await api({ method: 'PUT', url: '/api/platform/app/endpoint-url', payload: { url: 'oa.example.com' } })).statusCode).toBe(400);
    expect((await api({ method: 'GET', url: '/api/platform/app' })).json()).toMatchObject({
      appName: 'collab-host simulator',
      endpointUrl: 'https://oa.example.com/callback',
      memberLimit: 5,
    });
  });

  it('activates, deactivates and sets seats, lists them, and reconciles them with the directory', async () => {
    expect((await api({ method: 'POST', url: '/api/platform/seats/activate', payload: { userIds: ['zhang', 'olga', 'ghost'] } })).statusCode).toBe(204);
    expect((await api({ method: 'POST', url: '/api/platform/seats/deactivate', payload: { userIds: ['olga'] } })).statusCode).toBe(204);
    expect((await api({ method: 'POST', url: '/api/platform/seats/status', payload: { userIds: ['wang'], status: -1 } })).statusCode).toBe(204);
    expect((await api({ method: 'POST', url: '/api/platform/seats/status', payload: { userIds: ['wang'], status: 3 } })).statusCode).toBe(400);
    expect((await api({ method: 'POST', url: '/api/platform/seats/activate', payload: { userIds: [] } })).statusCode).toBe(400);
    const page = await api({ method: 'GET', url: '/api/platform/seats?page=1&size=2' });
    expect(page.json()).toEqual({ page: 1, size: 2, seats: [expect.objectContaining({ userId: 'ghost', status: 1 }), expect.objectContaining({ userId: 'olga', status: 0 })] });

    // The directory: nine users, all active. ghost holds a seat but is not a user here.
    const plan = await api({ method: 'POST', url: '/api/platform/seats/reconcile?dryRun=true' });
    expect(plan.json()).toEqual({ dryRun: true, seatsListed: 4, deactivate: ['ghost'], activate: ['alice', 'bob', 'carol', 'hanmeimei', 'lilei', 'olga', 'outsider', 'wang'] });
    expect(sim.platform.world.seats.get('ghost')?.status).toBe(1);
    // Five licensed seats cannot hold nine users: the platform's refusal comes through with its status and body.
    const refused = await api({ method: 'POST', url: '/api/platform/seats/reconcile' });
    expect(refused.statusCode).toBe(502);
    expect(refused.json().error.message).toContain('HTTP 403, platform error 70014');
    expect(sim.platform.world.seats.get('ghost')?.status).toBe(0);
  });

  it('lists seat tasks queued by directory changes, newest first, paged', async () => {
    await store()
      .db.transaction()
      .execute((trx) =>
        sqlSeatTasks(trx).enqueue(
          [
            { userId: 'olga', action: 'deactivate' },
            { userId: 'wang', action: 'activate' },
            { userId: 'bob', action: 'deactivate' },
          ],
          { source: 'api', nowMs: Date.parse('2025-01-01T00:00:00Z') },
        ),
      );
    const first = (await api({ method: 'GET', url: '/api/platform/seat-tasks?limit=2' })).json();
    expect(first.items.map((item: { userId: string }) => item.userId)).toEqual(['bob', 'wang']);
    expect(first.items[0]).toMatchObject({
      action: 'deactivate',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: '2025-01-01T00:00:00Z',
      lastError: null,
      source: 'api',
      createdAt: '2025-01-01T00:00:00Z',
    });
    const second = (await api({ method: 'GET', url: `/api/platform/seat-tasks?limit=2&cursor=${first.nextCursor}` })).json();
    expect(second).toEqual({ items: [expect.objectContaining({ userId: 'olga' })], nextCursor: null });
    expect((await api({ method: 'GET', url: '/api/platform/seat-tasks?status=done' })).json().items).toEqual([]);
  });
});

describe('/api/platform against a stand-in that accepts only header credentials, and without a platform', () => {
  const platform = new StandInPlatform({ headerCredentialsOnly: true });
  let store: OpenDatabase;
  let app: FastifyInstance;
  let off: FastifyInstance;
  beforeAll(async () => {
    await platform.start();
    store = await openDatabase('sqlite::memory:');
    await seedDirectory(store.db);
    app = await buildTestApp(store, { adminApiKey: ADMIN_API_KEY, platformApiUrl: platform.url });
    off = await buildTestApp(store, { adminApiKey: ADMIN_API_KEY });
  });
  afterAll(async () => {
    await app.close();
    await off.close();
    await platform.stop();
    await store.close();
  });

  it("carries the acting user's token in the headers and answers what the platform answered", async () => {
    platform.answerNext({ kind: 'json', status: 200, body: { count: 7 } });
    const answer = await app.inject({ method: 'GET', url: '/api/platform/files/plan/comment-count?userId=lilei', headers: admin });
    expect(answer.json()).toEqual({ count: 7 });
    const call = platform.calls.at(-1)!;
    expect(call.path).toBe('/sdk/v2/collab-files/plan/comment-count');
    expect(call.headers['x-platform-token']).toBe(call.headers['x-weboffice-token']);
    expect(call.headers['x-platform-token']).toBeTruthy();
  });

  it("turns the platform's failures into 502 naming its status and body, and never into a 500", async () => {
    platform.answerNext({ kind: 'error', status: 500, body: { message: 'database down' } });
    const refused = await app.inject({ method: 'GET', url: '/api/platform/app', headers: admin });
    expect(refused.statusCode).toBe(502);
    expect(refused.json().error).toEqual({
      code: 'platform_refused',
      message: 'the platform refused GET /sdk/v2/api/license/apps/test-app: HTTP 500; body {"message":"database down"}',
    });
    platform.answerNext({ kind: 'json', status: 200, body: { appName: 5 } });
    expect((await app.inject({ method: 'GET', url: '/api/platform/app', headers: admin })).json().error.code).toBe('platform_unexpected_answer');
  });

  it('answers 503 platform_not_configured without PLATFORM_API_URL', async () => {
    for (const url of ['/api/platform/app', '/api/platform/seats', '/api/platform/files/plan/history']) {
      const answer = await off.inject({ method: 'GET', url, headers: admin });
      expect({ url, status: answer.statusCode, code: answer.json().error.code }).toEqual({ url, status: 503, code: 'platform_not_configured' });
    }
  });
});
