import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import { PlatformClient, type PlatformUser } from '../../src/platform/platform-client.js';

const APP = { appId: 'sim-app', appSecret: 'sim-app-secret-0123456789' };
const zhang: PlatformUser = { token: 'zhang-token' };

describe("every platform call from collab-host's client against collab-host simulate", () => {
  let sim: RunningSimulator;
  let client: PlatformClient;
  beforeAll(async () => {
    sim = await startSimulator({ credentials: APP, endpointUrl: 'http://127.0.0.1:3000', memberLimit: 3 });
    client = new PlatformClient({ apiUrl: sim.url, credentials: APP });
  });
  afterAll(() => sim.close());

  it('creates, copies and deletes documents; the platform answers 204 and names a missing file 70013', async () => {
    await client.createFile({ fileId: 'doc', type: 'document', lang: 'jp' }, zhang);
    await client.copyFile({ fileId: 'doc', newFileId: 'doc-copy' }, zhang);
    expect([...sim.platform.files.keys()]).toEqual(['doc', 'doc-copy']);
    await client.deleteFile({ fileId: 'doc-copy' }, zhang);
    await expect(client.deleteFile({ fileId: 'doc-copy' }, zhang)).rejects.toMatchObject({ failure: 'refused', status: 404, platformCode: '70013' });
    await expect(client.copyFile({ fileId: 'doc', newFileId: 'doc' }, zhang)).rejects.toMatchObject({ platformCode: '70012' });
  });

  it('reads history, revisions, plain text, word count, mentions and comment count', async () => {
    await fetch(`${sim.url}/simulator/files/doc`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        text: 'plan the plan',
        comments: 2,
        mentions: [{ userId: 'lilei', atGuid: 'at-1' }],
        revisions: [{ id: 1, label: 'v1', title: 'first', docHistoryId: 'h', createdAt: 'x', updatedAt: 'x', user: { id: 'zhang', name: '张三' } }],
      }),
    });
    expect((await client.history({ fileId: 'doc' })).histories).toEqual([expect.objectContaining({ name: 'created', historyType: 2 })]);
    expect((await client.history({ fileId: 'doc', historyType: 1 })).histories).toEqual([]);
    expect(await client.revisions({ fileId: 'doc' })).toEqual([expect.objectContaining({ id: 1, title: 'first' })]);
    expect(await client.plainText({ fileId: 'doc' })).toEqual({ content: 'plan the plan' });
    expect(await client.wordCount({ fileId: 'doc' })).toEqual({ wordCount: 3, keywords: { plan: 2, the: 1 } });
    expect(await client.mentions({ fileId: 'doc' })).toEqual({ mentionAtList: [{ userId: 'lilei', atGuid: 'at-1' }] });
    expect(await client.commentCount({ fileId: 'doc' })).toEqual({ count: 2 });
  });

  it('imports (v1 with the bytes, v2 by URL) through tasks that progress to 100, then the document exists', async () => {
    const v1 = await client.importFile({ fileId: 'imported-1', type: 'document', fileName: 'notes.md', file: { name: 'notes.md', bytes: Buffer.from('# notes') } }, zhang);
    const v2 = await client.importFile({ fileId: 'imported-2', type: 'spreadsheet', fileUrl: 'https://files.example.com/q.xlsx', fileName: 'q.xlsx', version: 2 }, zhang);
    expect(await client.importProgress({ taskId: v1.taskId })).toEqual({ progress: 50 });
    expect(sim.platform.files.has('imported-1')).toBe(false);
    expect(await client.importProgress({ taskId: v1.taskId })).toEqual({ progress: 100 });
    expect(sim.platform.files.get('imported-1')?.type).toBe('document');
    expect(await client.importProgress({ taskId: v2.taskId, version: 2 })).toEqual({ progress: 50 });
    await expect(client.importFile({ fileId: 'bad', type: 'spreadsheet', fileUrl: 'https://x/a.docx', fileName: 'a.docx', version: 2 }, zhang)).rejects.toMatchObject({
      platformCode: '70001',
    });
  });

  it('exports to a file served at the downloadUrl, and the application table synchronously', async () => {
    const { taskId } = await client.exportFile({ fileId: 'doc', format: 'md' });
    expect(await client.exportProgress({ taskId })).toEqual({ progress: 50 });
    const done = await client.exportProgress({ taskId });
    expect(done.progress).toBe(100);
    expect(await (await fetch(done.downloadUrl!)).text()).toBe('simulated md export of doc\nplan the plan');
    await expect(client.exportFile({ fileId: 'doc', format: 'xlsx' })).rejects.toMatchObject({ failure: 'refused', platformCode: '70001' });

    await client.createFile({ fileId: 'tbl', type: 'table' }, zhang);
    const table = await client.exportTableSheets({ fileId: 'tbl' });
    expect((await fetch(table.downloadUrl)).status).toBe(200);
    await expect(client.exportTableSheets({ fileId: 'doc' })).rejects.toMatchObject({ failure: 'failed' });
  });

  it('reads and writes sheet cells, appends and deletes rows, adds a sheet', async () => {
    await client.createFile({ fileId: 'sheet', type: 'spreadsheet' }, zhang);
    await client.updateCells({
      fileId: 'sheet',
      range: 'Sheet1!A1:B2',
      values: [
        ['name', 'n'],
        ['a', 1],
      ],
    });
    await client.appendCells({
      fileId: 'sheet',
      range: 'Sheet1!A1',
      values: [
        ['b', 2],
        ['c', 3],
      ],
    });
    expect(await client.readCells({ fileId: 'sheet', range: 'Sheet1!A1:B4' })).toEqual({
      values: [
        ['name', 'n'],
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ],
      lag: 0,
    });
    await client.deleteRows({ fileId: 'sheet', sheetName: 'Sheet1', index: 2, count: 2 });
    expect((await client.readCells({ fileId: 'sheet', range: 'Sheet1!A1:B2' })).values).toEqual([
      ['name', 'n'],
      ['c', 3],
    ]);
    await client.addSheet({ fileId: 'sheet', name: 'Q2' });
    expect(await client.readCells({ fileId: 'sheet', range: 'Q2!A1' })).toEqual({ values: [], lag: 0 });
    await expect(client.addSheet({ fileId: 'doc', name: 'Q2' })).rejects.toMatchObject({ platformCode: '70001' });
  });

  it('replaces and reads bookmarks of a traditional document', async () => {
    await client.createFile({ fileId: 'contract', type: 'documentPro' }, zhang);
    await client.replaceBookmarks({
      fileId: 'contract',
      replacements: [
        { bookmark: 'party', value: 'Galaxy' },
        { bookmark: 'date', value: '2025-01-01' },
      ],
    });
    expect(await client.readBookmarks({ fileId: 'contract', bookmarks: ['party', 'missing'] })).toEqual({ data: [{ bookmark: 'party', content: 'Galaxy' }] });
  });

  it('creates a preview and opens its page; uploads an attachment with a token', async () => {
    await client.createPreview({ fileId: 'scan.pdf' });
    expect((await client.previewPage({ fileId: 'scan.pdf' })).html).toContain('preview of scan.pdf');
    const [token] = await client.uploadToken({ files: [{ bucket: 'attachments', filename: 'a.png', fileGuid: 'g1', fileSize: 3 }] });
    const uploaded = await client.upload({ accessToken: token!.accessToken, download: [], file: { name: 'a.png', bytes: Buffer.from('png') } });
    expect(uploaded).toMatchObject({ code: 0, body: { GUID: 'g1', filename: 'a.png', size: '3' } });
    await expect(client.upload({ accessToken: token!.accessToken, file: { name: 'a.png', bytes: Buffer.from('png') } })).rejects.toMatchObject({ failure: 'failed' });
  });

  it('answers app details, changes the callback URL, and keeps seats in states 1, 0 and -1 within the licence', async () => {
    await client.updateCallbackUrl({ url: 'https://oa.example.com/callback' });
    await client.activateSeats(['zhang', 'lilei']);
    await client.deactivateSeats(['lilei']);
    await client.setSeatStatus(['wang'], -1);
    expect(await client.appDetails()).toMatchObject({
      appName: 'collab-host simulator',
      endpointUrl: 'https://oa.example.com/callback',
      memberLimit: 3,
      activatedUserCount: 1,
      userCount: 3,
    });
    expect((await client.listSeats({ page: 1, size: 2 })).map(({ userId, status }) => ({ userId, status }))).toEqual([
      { userId: 'lilei', status: 0 },
      { userId: 'wang', status: -1 },
    ]);
    expect(await client.listSeats({ page: 2, size: 2 })).toEqual([expect.objectContaining({ userId: 'zhang', status: 1 })]);
    await expect(client.activateSeats(['a', 'b', 'c'])).rejects.toMatchObject({ status: 403, platformCode: '70014' });
  });

  it('imports into an AI knowledge base (v1 204, v2 a task) and removes a file', async () => {
    await expect(client.aiImport({ knowledgeBaseGuid: 'kb', importType: 'url', fileType: 'pdf', downloadUrl: 'https://x/a.pdf' })).resolves.toEqual({});
    const { taskId } = await client.aiImport({ knowledgeBaseGuid: 'kb', importType: 'file', fileGuid: 'doc', fileType: 'document', version: 2 });
    expect(await client.aiImportProgress({ taskId: taskId! })).toMatchObject({ status: 'processing', progress: 50 });
    expect(await client.aiImportProgress({ taskId: taskId! })).toMatchObject({ status: 'completed', progress: 100 });
    await client.aiDelete({ knowledgeBaseGuid: 'kb', fileGuid: 'doc' });
    await expect(client.aiDelete({ knowledgeBaseGuid: 'kb', fileGuid: 'doc' })).rejects.toMatchObject({ platformCode: '70001' });
  });
});
