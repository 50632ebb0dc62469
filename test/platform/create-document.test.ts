import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { verifyUserToken } from '../../src/auth/user-token.js';
import { createDocument, type DocumentDeps } from '../../src/platform/create-document.js';
import { PlatformClient } from '../../src/platform/platform-client.js';
import { mintUserToken } from '../../src/auth/user-token.js';
import { sqlDocumentRecords } from '../../src/store/platform/document-records.js';
import { SqlDirectory } from '../../src/store/directory-reads/sql-directory.js';
import { asUser, buildTestApp, makeTestConfig } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { closedPortUrl, StandInPlatform } from './stand-in-platform.js';
import { withKitKeys } from '../helpers/permissions.js';

const config = makeTestConfig();

describeEachStore('createDocument', (store) => {
  const platform = new StandInPlatform();
  let deps: DocumentDeps;
  let app: FastifyInstance;

  beforeAll(async () => {
    await platform.start();
    await seedDirectory(store().db);
    deps = {
      directory: new SqlDirectory(store().db),
      records: sqlDocumentRecords(store().db),
      platform: new PlatformClient({ apiUrl: platform.url, credentials: config, timeoutMs: 10_000 }),
      userFor: (userId) => ({ token: mintUserToken(userId, config.tokenSecret, 3600) }),
    };
    app = await buildTestApp(store());
  });
  afterAll(async () => {
    await app.close();
    await platform.stop();
  });

  const statusOf = async (fileId: string) => (await store().db.selectFrom('files').select('status').where('id', '=', fileId).executeTakeFirst())?.status;

  it('creates the document on the platform, with the creator token, and serves it to its creator as manageable', async () => {
    const file = await createDocument(deps, { creatorId: 'lilei', type: 'spreadsheet', name: '新表格', fileId: 'new-sheet' });
    expect(file).toMatchObject({ id: 'new-sheet', name: '新表格', type: 'spreadsheet', creatorId: 'lilei', teamId: 'acme', status: 'active' });
    const call = platform.calls.at(-1)!;
    expect(call.body).toEqual({ type: 'spreadsheet', fileId: 'new-sheet' });
    expect(call.query.get('lang')).toBe('zh-CN');
    expect(call.headers['x-platform-token']).toBe(call.query.get('token'));
    const token = await verifyUserToken(call.query.get('token')!, config.tokenSecret);
    expect(token).toMatchObject({ ok: true, userId: 'lilei' });

    const seen = await app.inject({ method: 'GET', url: '/files/new-sheet', headers: asUser('lilei') });
    expect(seen.statusCode).toBe(200);
    expect(seen.json()).toMatchObject({ id: 'new-sheet', name: '新表格', creatorId: 'lilei', teamGuid: 'acme' });
    expect(seen.json().permissions).toEqual(withKitKeys({ readable: true, commentable: true, editable: true, copyable: true, exportable: true, manageable: true }));
    expect((await app.inject({ method: 'GET', url: '/files/new-sheet', headers: asUser('olga') })).json().permissions.readable).toBe(false);
  });

  it('generates a UUID file id when none is given', async () => {
    const file = await createDocument(deps, { creatorId: 'zhang', type: 'documentPro', name: 'Untitled' });
    expect(file.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await statusOf(file.id)).toBe('active');
  });

  it('keeps the record pending while the platform works, so it is never served half-created', async () => {
    platform.answerNext({ kind: 'hang' });
    const arrived = platform.nextArrival();
    const creating = createDocument(deps, { creatorId: 'zhang', type: 'document', name: 'Slow', fileId: 'slow-doc' }).catch((e: unknown) => e);
    await arrived; // the platform holds the call: nothing is answered yet
    expect(await statusOf('slow-doc')).toBe('pending');
    expect((await app.inject({ method: 'GET', url: '/files/slow-doc', headers: asUser('zhang') })).statusCode).toBe(404);
    // The connection drops: the platform may or may not have made it, so it is kept `failed`, still not served.
    platform.release();
    expect(await creating).toMatchObject({ failure: 'unreachable' });
    expect(await statusOf('slow-doc')).toBe('failed');
    expect((await app.inject({ method: 'GET', url: '/files/slow-doc', headers: asUser('zhang') })).statusCode).toBe(404);

    // A retry of the failed id that the platform reports as existing means the first call did succeed.
    platform.answerNext({ kind: 'error', status: 409, body: { code: 70012, message: 'exists' } });
    const retried = await createDocument(deps, { creatorId: 'zhang', type: 'document', name: 'Slow', fileId: 'slow-doc' });
    expect(retried.status).toBe('active');
    expect((await app.inject({ method: 'GET', url: '/files/slow-doc', headers: asUser('zhang') })).statusCode).toBe(200);
  });

  it('removes the record when the platform refuses, and names the code', async () => {
    platform.answerNext({ kind: 'error', status: 400, body: { code: 70001, message: 'bad type' } });
    const error = await createDocument(deps, { creatorId: 'zhang', type: 'table', name: 'T', fileId: 'refused-doc' }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      'the platform refused POST /sdk/v2/api/files: HTTP 400, platform error 70001 (bad parameters): bad type; body {"code":70001,"message":"bad type"}',
    );
    expect(await statusOf('refused-doc')).toBeUndefined();

    platform.answerNext({ kind: 'error', status: 409, body: { code: 70012, message: 'exists' } });
    const exists = await createDocument(deps, { creatorId: 'zhang', type: 'table', name: 'T', fileId: 'taken-there' }).catch((e: unknown) => e);
    expect(exists).toMatchObject({ failure: 'refused', platformCode: '70012' });
    expect(await statusOf('taken-there')).toBeUndefined();
  });

  it('marks the record failed when the platform cannot be reached', async () => {
    const down = { ...deps, platform: new PlatformClient({ apiUrl: await closedPortUrl(), credentials: config, timeoutMs: 2000 }) };
    const error = await createDocument(down, { creatorId: 'zhang', type: 'document', name: 'D', fileId: 'unreached' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'unreachable' });
    expect(await statusOf('unreached')).toBe('failed');
  });

  it('refuses bad input before writing or calling anything', async () => {
    const calls = platform.calls.length;
    const cases: Array<[Parameters<typeof createDocument>[1], string]> = [
      [{ creatorId: 'ghost', type: 'document', name: 'x', fileId: 'g1' }, 'user ghost does not exist'],
      [{ creatorId: 'zhang', type: 'file', name: 'x', fileId: 'g2' }, 'type must be one of documentPro, document, spreadsheet, table'],
      [{ creatorId: 'zhang', type: 'document', name: 'x', fileId: 'a'.repeat(65) }, 'fileId must be 1 to 64 letters'],
      [{ creatorId: 'zhang', type: 'document', name: 'x', fileId: 'a/b' }, 'fileId must be 1 to 64 letters'],
      [{ creatorId: 'zhang', type: 'document', name: '  ', fileId: 'g3' }, 'name must be 1 to 500 characters'],
      [{ creatorId: 'zhang', type: 'document', name: 'x', fileId: 'plan' }, 'a file with id plan already exists'],
    ];
    for (const [input, message] of cases) {
      await expect(createDocument(deps, input)).rejects.toThrow(message);
    }
    expect(platform.calls.length).toBe(calls);
    expect(await statusOf('g1')).toBeUndefined();
    // the existing file is untouched
    expect((await app.inject({ method: 'GET', url: '/files/plan', headers: asUser('zhang') })).json().name).toBe('季度计划');
  });

  it('says so when PLATFORM_API_URL is not set', async () => {
    await expect(createDocument({ ...deps, platform: undefined }, { creatorId: 'zhang', type: 'document', name: 'x', fileId: 'nc' })).rejects.toThrow(
      'PLATFORM_API_URL is not set',
    );
    expect(await statusOf('nc')).toBeUndefined();
  });
});
