import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/auth/platform-signature.js';
import { userUuid } from '../../src/platform/api-signature.js';
import { PlatformClient, type PlatformUser } from '../../src/platform/platform-client.js';
import { PlatformError } from '../../src/platform/platform-errors.js';
import { closedPortUrl, decodeJwt, StandInPlatform, type Answer } from './stand-in-platform.js';

const credentials = { appId: 'test-app', appSecret: 'test-app-secret-0123456789' };
const alice: PlatformUser = { token: 'alice-token', uuid: userUuid('alice') };
const ok = (body: unknown): Answer => ({ kind: 'json', status: 200, body });

/** One call of the platform API: how the client makes it, what the platform must receive, what it answers. */
interface CallCase {
  name: string;
  run: (client: PlatformClient) => Promise<unknown>;
  method: string;
  path: string;
  query?: Record<string, string | string[]>;
  body?: unknown;
  scope: 'default' | 'license';
  withUser: boolean;
  answer?: Answer;
  result?: unknown;
}

const CASES: CallCase[] = [
  {
    name: 'create',
    run: (c) => c.createFile({ fileId: 'doc-1', type: 'documentPro', lang: 'en', contentKey: 'k1' }, alice),
    method: 'POST',
    path: '/sdk/v2/api/files',
    query: { lang: 'en' },
    body: { type: 'documentPro', fileId: 'doc-1', contentKey: 'k1' },
    scope: 'default',
    withUser: true,
  },
  {
    name: 'copy',
    run: (c) => c.copyFile({ fileId: 'a b', newFileId: 'b' }, alice),
    method: 'POST',
    path: '/sdk/v2/collab-files/a%20b/copy',
    body: { fileId: 'b' },
    scope: 'default',
    withUser: true,
  },
  { name: 'delete', run: (c) => c.deleteFile({ fileId: 'doc-1' }, alice), method: 'DELETE', path: '/sdk/v2/api/files/doc-1', scope: 'default', withUser: true },
  {
    name: 'history',
    run: (c) => c.history({ fileId: 'd', pageSize: 5, count: 10, historyType: 1 }, alice),
    method: 'GET',
    path: '/sdk/v2/collab-files/d/doc-sidebar-info',
    query: { pageSize: '5', count: '10', historyType: '1' },
    scope: 'default',
    withUser: true,
    answer: ok({ histories: [{ id: 'h1', name: 'n', content: 'c', createdAt: 't', updateAt: 't', historyType: 1, userId: '1,2' }], isLastPage: true, limit: 5, users: { 1: 'A' } }),
    result: { histories: [{ id: 'h1', name: 'n', content: 'c', createdAt: 't', updateAt: 't', historyType: 1, userId: '1,2' }], isLastPage: true, limit: 5, users: { 1: 'A' } },
  },
  {
    name: 'revisions',
    run: (c) => c.revisions({ fileId: 'd' }),
    method: 'GET',
    path: '/sdk/v2/collab-files/d/revisions',
    scope: 'default',
    withUser: false,
    answer: ok([{ id: 3, label: 'v1', title: 't', docHistoryId: 'h1', createdAt: 'x', updatedAt: 'y', user: { id: '1', name: 'A' } }]),
    result: [{ id: 3, label: 'v1', title: 't', docHistoryId: 'h1', createdAt: 'x', updatedAt: 'y', user: { id: '1', name: 'A' } }],
  },
  {
    name: 'plain text',
    run: (c) => c.plainText({ fileId: 'd' }),
    method: 'GET',
    path: '/sdk/v2/collab-files/d/plain-text',
    scope: 'default',
    withUser: false,
    answer: ok({ content: 'hi' }),
    result: { content: 'hi' },
  },
  {
    name: 'word count',
    run: (c) => c.wordCount({ fileId: 'd' }),
    method: 'POST',
    path: '/sdk/v2/collab-files/d/plain-text/wc',
    scope: 'default',
    withUser: false,
    answer: ok({ wordCount: 2, keywords: { hi: 2 } }),
    result: { wordCount: 2, keywords: { hi: 2 } },
  },
  {
    name: 'mentions',
    run: (c) => c.mentions({ fileId: 'd' }),
    method: 'GET',
    path: '/sdk/v2/collab-files/d/mention-at-list',
    scope: 'default',
    withUser: false,
    answer: ok({ mentionAtList: [{ userId: 'u1', atGuid: 'g' }] }),
    result: { mentionAtList: [{ userId: 'u1', atGuid: 'g' }] },
  },
  {
    name: 'comment count',
    run: (c) => c.commentCount({ fileId: 'd' }),
    method: 'GET',
    path: '/sdk/v2/collab-files/d/comment-count',
    scope: 'default',
    withUser: false,
    answer: ok({ count: 4 }),
    result: { count: 4 },
  },
  {
    name: 'import v2',
    run: (c) => c.importFile({ fileId: 'n', type: 'document', fileUrl: 'https://x/a.docx', fileName: 'a.docx', version: 2 }, alice),
    method: 'POST',
    path: '/sdk/v2/api/files/v2/import',
    body: { fileId: 'n', type: 'document', fileUrl: 'https://x/a.docx', fileName: 'a.docx' },
    scope: 'default',
    withUser: true,
    answer: ok({ status: 0, message: '', data: { taskId: 't1' } }),
    result: { taskId: 't1' },
  },
  {
    name: 'import progress v1',
    run: (c) => c.importProgress({ taskId: 't1' }),
    method: 'POST',
    path: '/sdk/v2/api/files/v1/import/progress',
    query: { taskId: 't1' },
    scope: 'default',
    withUser: false,
    answer: ok({ status: 0, data: { progress: 50 } }),
    result: { progress: 50 },
  },
  {
    name: 'import progress v2',
    run: (c) => c.importProgress({ taskId: 't1', version: 2 }),
    method: 'POST',
    path: '/sdk/v2/api/files/v2/import/progress',
    body: { taskId: 't1' },
    scope: 'default',
    withUser: false,
    answer: ok({ status: 0, data: { progress: 100 } }),
    result: { progress: 100 },
  },
  {
    name: 'export',
    run: (c) => c.exportFile({ fileId: 'd', format: 'pdf' }),
    method: 'POST',
    path: '/sdk/v2/api/files/v1/export/d',
    body: { type: 'pdf' },
    scope: 'default',
    withUser: false,
    answer: ok({ status: 0, data: { taskId: 'e1' } }),
    result: { taskId: 'e1' },
  },
  {
    name: 'export progress',
    run: (c) => c.exportProgress({ taskId: 'e1' }),
    method: 'POST',
    path: '/sdk/v2/api/files/v1/export/progress',
    query: { taskId: 'e1' },
    scope: 'default',
    withUser: false,
    answer: ok({ status: 0, data: { progress: 100, downloadUrl: 'https://dl/x.pdf' } }),
    result: { progress: 100, downloadUrl: 'https://dl/x.pdf' },
  },
  {
    name: 'table export',
    run: (c) => c.exportTableSheets({ fileId: 't' }),
    method: 'POST',
    path: '/sdk/v2/api/files/export/table-sheets/t',
    scope: 'default',
    withUser: false,
    answer: ok({ status: 0, message: '', downloadUrl: 'https://dl/t.xlsx' }),
    result: { downloadUrl: 'https://dl/t.xlsx' },
  },
  {
    name: 'read cells',
    run: (c) => c.readCells({ fileId: 's', range: 'Sheet1!A1:B2' }),
    method: 'GET',
    path: '/sdk/v2/api/files/s/sheets/values',
    query: { range: 'Sheet1!A1:B2' },
    scope: 'default',
    withUser: false,
    answer: ok({ values: [[1, 'a']], lag: 0 }),
    result: { values: [[1, 'a']], lag: 0 },
  },
  {
    name: 'update cells',
    run: (c) => c.updateCells({ fileId: 's', range: 'Sheet1!A1', values: [[1]] }),
    method: 'POST',
    path: '/sdk/v2/api/files/s/sheets/values',
    body: { range: 'Sheet1!A1', resource: { values: [[1]] } },
    scope: 'default',
    withUser: false,
  },
  {
    name: 'append cells',
    run: (c) => c.appendCells({ fileId: 's', range: 'Sheet1!A1', values: [[2]] }),
    method: 'PUT',
    path: '/sdk/v2/api/files/s/sheets/values',
    body: { range: 'Sheet1!A1', resource: { values: [[2]] } },
    scope: 'default',
    withUser: false,
  },
  {
    name: 'delete rows',
    run: (c) => c.deleteRows({ fileId: 's', sheetName: 'Sheet 1', index: 3, count: 2 }),
    method: 'DELETE',
    path: '/sdk/v2/api/files/s/sheets/Sheet%201/rows/3',
    query: { count: '2' },
    scope: 'default',
    withUser: false,
  },
  {
    name: 'add sheet',
    run: (c) => c.addSheet({ fileId: 's', name: 'Q2' }),
    method: 'POST',
    path: '/sdk/v2/api/files/s/sheets',
    body: { name: 'Q2' },
    scope: 'default',
    withUser: false,
  },
  {
    name: 'read bookmarks',
    run: (c) => c.readBookmarks({ fileId: 'p', bookmarks: ['b1', 'b2'] }),
    method: 'GET',
    path: '/sdk/v2/api/files/p/documentpro/bookmark_content',
    query: { bookmarks: ['b1', 'b2'] },
    scope: 'default',
    withUser: false,
    answer: ok({ data: [{ bookmark: 'b1', content: 'x' }] }),
    result: { data: [{ bookmark: 'b1', content: 'x' }] },
  },
  {
    name: 'replace bookmarks',
    run: (c) => c.replaceBookmarks({ fileId: 'p', replacements: [{ bookmark: 'b1', value: 'y' }] }),
    method: 'PUT',
    path: '/sdk/v2/api/files/p/documentpro/bookmark_content',
    body: { replacements: [{ bookmark: 'b1', type: 'text', value: 'y' }] },
    scope: 'default',
    withUser: false,
  },
  {
    name: 'upload token',
    run: (c) => c.uploadToken({ files: [{ bucket: 'attachments', filename: 'a.png', fileGuid: 'g', fileSize: 3, encrypt: 'default' }] }),
    method: 'POST',
    path: '/uploader/token',
    body: [{ bucket: 'attachments', filename: 'a.png', fileGuid: 'g', fileSize: 3, encrypt: 'default' }],
    scope: 'default',
    withUser: false,
    answer: ok([{ accessToken: 'at', fileFieldKey: 'file', serverUrl: 'https://up' }]),
    result: [{ accessToken: 'at', fileFieldKey: 'file', serverUrl: 'https://up' }],
  },
  {
    name: 'create preview',
    run: (c) => c.createPreview({ fileId: 'f' }),
    method: 'POST',
    path: '/sdk/v2/api/cloud-files/f/create',
    scope: 'default',
    withUser: false,
    answer: ok({ code: '', message: '' }),
  },
  {
    name: 'preview page',
    run: (c) => c.previewPage({ fileId: 'f' }),
    method: 'GET',
    path: '/sdk/v2/api/cloud-files/f/page',
    scope: 'default',
    withUser: false,
    answer: ok('<html>'),
    result: { html: '<html>' },
  },
  {
    name: 'app details',
    run: (c) => c.appDetails(),
    method: 'GET',
    path: '/sdk/v2/api/license/apps/test-app',
    scope: 'license',
    withUser: false,
    answer: ok({ appName: 'A', memberLimit: 10, endpointUrl: 'https://cb' }),
    result: { appName: 'A', memberLimit: 10, endpointUrl: 'https://cb' },
  },
  {
    name: 'callback url',
    run: (c) => c.updateCallbackUrl({ url: 'https://cb/callback' }),
    method: 'PUT',
    path: '/sdk/v2/api/license/apps/test-app/endpoint-url',
    body: { url: 'https://cb/callback' },
    scope: 'license',
    withUser: false,
  },
  {
    name: 'seat list',
    run: (c) => c.listSeats({ page: 2, size: 10 }),
    method: 'GET',
    path: '/sdk/v2/api/license/users',
    query: { page: '2', size: '10' },
    scope: 'license',
    withUser: false,
    answer: ok([{ userId: 'u1', createdAt: 'x', status: -1 }]),
    result: [{ userId: 'u1', createdAt: 'x', status: -1 }],
  },
  {
    name: 'activate',
    run: (c) => c.activateSeats(['u1', 'u2']),
    method: 'POST',
    path: '/sdk/v2/api/license/users/activate',
    body: { userIds: ['u1', 'u2'] },
    scope: 'license',
    withUser: false,
  },
  {
    name: 'deactivate',
    run: (c) => c.deactivateSeats(['u1']),
    method: 'POST',
    path: '/sdk/v2/api/license/users/deactivate',
    body: { userIds: ['u1'] },
    scope: 'license',
    withUser: false,
  },
  {
    name: 'set status',
    run: (c) => c.setSeatStatus(['u1'], -1),
    method: 'POST',
    path: '/sdk/v2/api/license/users/set-status',
    body: { userIds: ['u1'], status: -1 },
    scope: 'license',
    withUser: false,
  },
  {
    name: 'ai import v1',
    run: (c) => c.aiImport({ knowledgeBaseGuid: 'kb', importType: 'url', fileType: 'pdf', downloadUrl: 'https://x/a.pdf' }),
    method: 'POST',
    path: '/sdk/v2/api/ai/rag/import',
    body: { knowledgeBaseGuid: 'kb', importType: 'url', fileGuid: '', fileType: 'pdf', downloadUrl: 'https://x/a.pdf' },
    scope: 'default',
    withUser: false,
    result: {},
  },
  {
    name: 'ai import v2',
    run: (c) => c.aiImport({ knowledgeBaseGuid: 'kb', importType: 'file', fileGuid: 'fg', fileType: 'document', version: 2 }),
    method: 'POST',
    path: '/sdk/v2/api/ai/rag/v2/import',
    body: { knowledgeBaseGuid: 'kb', importType: 'file', fileGuid: 'fg', fileType: 'document', downloadUrl: '' },
    scope: 'default',
    withUser: false,
    answer: ok({ taskId: 'r1' }),
    result: { taskId: 'r1' },
  },
  {
    name: 'ai progress',
    run: (c) => c.aiImportProgress({ taskId: 'r1' }),
    method: 'POST',
    path: '/sdk/v2/api/ai/rag/v2/import/progress',
    body: { taskId: 'r1' },
    scope: 'default',
    withUser: false,
    answer: ok({ taskId: 'r1', status: 'completed', progress: 100 }),
    result: { taskId: 'r1', status: 'completed', progress: 100 },
  },
  {
    name: 'ai delete',
    run: (c) => c.aiDelete({ knowledgeBaseGuid: 'kb', fileGuid: 'fg' }),
    method: 'DELETE',
    path: '/sdk/v2/api/ai/rag/delete',
    body: { knowledgeBaseGuid: 'kb', fileGuid: 'fg' },
    scope: 'default',
    withUser: false,
    answer: ok({}),
  },
];

describe('PlatformClient against a stand-in that accepts only header credentials', () => {
  const platform = new StandInPlatform({ headerCredentialsOnly: true });
  let client: PlatformClient;

  beforeAll(async () => {
    await platform.start();
    client = new PlatformClient({ apiUrl: platform.url, credentials, timeoutMs: 500 });
  });
  afterAll(() => platform.stop());
  beforeEach(() => {
    platform.calls.length = 0;
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s: method, path, credentials in headers and query, body, scope', async (_name, call) => {
    if (call.answer) platform.answerNext(call.answer);
    const result = await call.run(client);
    if (call.result !== undefined) expect(result).toEqual(call.result);
    expect(platform.calls).toHaveLength(1);
    const received = platform.calls[0]!;
    expect({ method: received.method, path: received.path }).toEqual({ method: call.method, path: call.path });
    const ownQuery = Object.fromEntries(
      [...new Set(received.query.keys())]
        .filter((k) => !['appId', 'signature', 'token'].includes(k))
        .map((k) => [k, received.query.getAll(k).length > 1 ? received.query.getAll(k) : received.query.get(k)]),
    );
    expect(ownQuery).toEqual(call.query ?? {});
    if (call.body !== undefined) {
      expect(received.contentType).toMatch(/^application\/json/);
      expect(received.body).toEqual(call.body);
    }

    // The same signature as the kit's header and as the interface document's query parameter.
    const signature = received.headers['x-platform-signature']!;
    expect(received.query.get('signature')).toBe(signature);
    expect(received.query.get('appId')).toBe('test-app');
    expect((await verifySignature(signature, credentials)).ok).toBe(true);
    const { header, claims } = decodeJwt(signature);
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT', kid: 'test-app' });
    const lifetime = (claims.exp as number) - (claims.iat as number);
    if (call.scope === 'license') {
      expect(claims.scope).toBe('license');
      expect(lifetime).toBeLessThanOrEqual(240);
      expect(typeof claims.jti).toBe('string');
    } else {
      expect(claims.scope).toBeUndefined();
      expect(lifetime).toBeLessThanOrEqual(24 * 3600);
    }
    if (call.withUser) {
      expect(received.headers['x-platform-token']).toBe('alice-token');
      expect(received.headers['x-weboffice-token']).toBe('alice-token');
      expect(received.headers['x-weboffice-user-uuid']).toBe(userUuid('alice'));
      expect(received.query.get('token')).toBe('alice-token');
    } else {
      expect(received.headers['x-platform-token']).toBeUndefined();
      expect(received.query.get('token')).toBeNull();
    }
  });

  it('covers every public method of the client', () => {
    const methods = Object.getOwnPropertyNames(PlatformClient.prototype).filter(
      (name) => name !== 'constructor' && !['appId', 'read', 'withStatus', 'startTask', 'checked'].includes(name),
    );
    const exercised = new Set(CASES.map((c) => /c\.(\w+)\(/.exec(c.run.toString())?.[1]));
    exercised.add('importFile'); // v1 multipart below
    exercised.add('upload'); // multipart below
    expect(methods.filter((name) => !exercised.has(name))).toEqual([]);
  });

  it('sends import v1 and upload as multipart, with the file part', async () => {
    platform.answerNext(ok({ status: 0, data: { taskId: 't9' } }), ok({ code: 0, data: null, body: { GUID: 'g' } }));
    await expect(client.importFile({ fileId: 'n', type: 'document', fileName: 'a.txt', file: { name: 'a.txt', bytes: Buffer.from('hello') } }, alice)).resolves.toEqual({
      taskId: 't9',
    });
    await expect(client.upload({ accessToken: 'at', download: ['d1', 'd2'], file: { name: 'x.png', bytes: Buffer.from('png') } })).resolves.toMatchObject({ code: 0 });
    const [imported, uploaded] = platform.calls;
    expect(imported!.path).toBe('/sdk/v2/api/files/v1/import');
    expect(imported!.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(String(imported!.body)).toMatch(/name="fileId"\r\n\r\nn\r\n/);
    expect(String(imported!.body)).toMatch(/name="file"; filename="a.txt"[\s\S]*hello/);
    expect(uploaded!.path).toBe('/uploader/upload');
    expect(String(uploaded!.body).match(/name="download"/g)).toHaveLength(2);
  });

  it('mints a fresh license signature for every call (single use), even within one second', async () => {
    await client.activateSeats(['a']);
    await client.activateSeats(['b']);
    await client.activateSeats(['c']);
    expect(new Set(platform.calls.map((call) => call.headers['x-platform-signature'])).size).toBe(3);
  });

  it('sends the configured brand and the callback version', async () => {
    const branded = new StandInPlatform({ headerCredentialsOnly: true, brand: 'Shimo' });
    await branded.start();
    try {
      const shimo = new PlatformClient({ apiUrl: branded.url, credentials, brand: 'Shimo', callbackVersion: 'v2' });
      await shimo.deleteFile({ fileId: 'x' }, alice);
      const call = branded.calls[0]!;
      expect(call.headers['x-shimo-token']).toBe('alice-token');
      expect(decodeJwt(call.headers['x-shimo-signature']!).claims.version).toBe('v2');
      expect(call.headers['x-platform-signature']).toBeUndefined();
    } finally {
      await branded.stop();
    }
  });
});

describe("PlatformClient failures: the platform's status and body in every message", () => {
  const platform = new StandInPlatform();
  let client: PlatformClient;
  beforeAll(async () => {
    await platform.start();
    client = new PlatformClient({ apiUrl: platform.url, credentials, timeoutMs: 500 });
  });
  afterAll(() => platform.stop());

  it('a refusal names the call, the status, the code and the body', async () => {
    platform.answerNext({ kind: 'error', status: 409, body: { code: 70012, message: 'file exists' } });
    const error = await client.createFile({ fileId: 'x', type: 'document' }, alice).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ failure: 'refused', status: 409, platformCode: '70012' });
    expect((error as Error).message).toBe(
      'the platform refused POST /sdk/v2/api/files: HTTP 409, platform error 70012 (file id already exists): file exists; body {"code":70012,"message":"file exists"}',
    );
  });

  it('a body without a code is quoted as it came', async () => {
    platform.answerNext({ kind: 'error', status: 500, body: 'oops <html>' });
    await expect(client.deleteFile({ fileId: 'x' })).rejects.toThrow('the platform refused DELETE /sdk/v2/api/files/x: HTTP 500; body oops <html>');
  });

  it('a 200 with a non-zero status is a failure (import, export)', async () => {
    platform.answerNext(ok({ status: 3, message: 'bad file', data: {} }));
    const error = await client.exportFile({ fileId: 'd', format: 'pdf' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'failed', status: 200 });
    expect((error as Error).message).toBe(
      'the platform reported a failure for POST /sdk/v2/api/files/v1/export/d: HTTP 200, status "3"; body {"status":3,"message":"bad file","data":{}}',
    );
    platform.answerNext(ok({ status: 7, message: 'x' }));
    await expect(client.importProgress({ taskId: 't' })).rejects.toMatchObject({ failure: 'failed' });
  });

  it('a preview answer with a non-empty code is a failure', async () => {
    platform.answerNext(ok({ code: 'file_too_large', message: 'too large' }));
    await expect(client.createPreview({ fileId: 'f' })).rejects.toThrow(
      'the platform reported a failure for POST /sdk/v2/api/cloud-files/f/create: HTTP 200, code "file_too_large"',
    );
  });

  it('a 2xx body of another shape is an unexpected answer, quoted', async () => {
    platform.answerNext(ok({ total: 3 }));
    await expect(client.commentCount({ fileId: 'f' })).rejects.toMatchObject({ failure: 'unexpected' });
    platform.answerNext({ kind: 'created' });
    await expect(client.plainText({ fileId: 'f' })).rejects.toThrow(
      'the platform answered GET /sdk/v2/collab-files/f/plain-text with an unexpected body (not JSON): HTTP 204; body (empty body)',
    );
  });

  it('gives up on a platform that never answers, after the time-out, and says so', async () => {
    platform.answerNext({ kind: 'hang' });
    const error = await client.createFile({ fileId: 'x', type: 'document' }, { token: 'secret-token' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'timeout' });
    expect((error as Error).message).toBe('the platform did not answer POST /sdk/v2/api/files within 500 ms');
    platform.release();
  });

  it('reports a refused connection without leaking the token or signature', async () => {
    const down = new PlatformClient({ apiUrl: await closedPortUrl(), credentials, timeoutMs: 2000 });
    const error = await down.createFile({ fileId: 'x', type: 'document' }, { token: 'secret-token' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ failure: 'unreachable' });
    expect((error as Error).message).toMatch(/^could not reach the platform for POST \/sdk\/v2\/api\/files at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED$/);
    expect((error as Error).message).not.toContain('secret-token');
  });
});
