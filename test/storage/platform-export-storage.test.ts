import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../src/conformance/simulator/server.js';
import type { FileStorage } from '../../src/storage/file-storage.js';
import { objectKey } from '../../src/storage/object-key.js';
import { asUser, buildTestApp, TEST_CONFIG_OVERRIDES } from '../helpers/app.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { describeEachStore } from '../helpers/stores.js';
import { ADMIN, ADMIN_KEY, download, storageFromEnv } from './storage-fixture.js';

const APP = { appId: TEST_CONFIG_OVERRIDES.appId as string, appSecret: TEST_CONFIG_OVERRIDES.appSecret as string };
const EXPORTED = Buffer.from('simulated pdf export of doc-x\n合同正文');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The platform's export of a document is kept as a third-party file through the file storage, as an
 * upload: in the configured back end, with its hash, within FILE_MAX_SIZE.
 */
describeEachStore('a platform export goes through the file storage', (store) => {
  let sim: RunningSimulator;
  let dir: string;
  const opened: Array<{ app: FastifyInstance; storage: FileStorage }> = [];
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ch-platform-export-'));
    sim = await startSimulator({ credentials: APP, memberLimit: 5 });
    await seedDirectory(store().db);
  });
  afterAll(async () => {
    for (const { app, storage } of opened) {
      await app.close();
      await storage.close();
    }
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function appWith(env: Record<string, string>) {
    const storage = storageFromEnv(store(), env);
    const app = await buildTestApp(store(), { adminApiKey: ADMIN_KEY, platformApiUrl: sim.url }, { fileStorage: storage });
    opened.push({ app, storage });
    const api = (options: InjectOptions) => app.inject({ ...options, headers: { ...ADMIN, ...options.headers } });
    return { app, storage, api };
  }

  /** Exports doc-x as pdf and polls until the task is no longer running. */
  async function exportDocument(api: (options: InjectOptions) => Promise<LightMyRequestResponse>) {
    const started = await api({ method: 'POST', url: '/api/platform/files/doc-x/exports', payload: { format: 'pdf' } });
    expect(started.statusCode).toBe(202);
    const { taskId } = started.json() as { taskId: string };
    for (;;) {
      const task = (await api({ method: 'GET', url: `/api/platform/exports/${taskId}` })).json() as { status: string; exportFileId?: string; message?: string };
      if (task.status !== 'running') return task;
    }
  }

  it('with FILE_STORAGE=fs:DIR the exported bytes are in DIR with their SHA-256, and downloadUrl serves them', async () => {
    const { app, storage, api } = await appWith({ FILE_STORAGE: `fs:${dir}` });
    expect((await api({ method: 'POST', url: '/api/documents', payload: { userId: 'lilei', type: 'documentPro', name: 'doc-x', fileId: 'doc-x' } })).statusCode).toBe(201);
    await fetch(`${sim.url}/simulator/files/doc-x`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"text":"合同正文"}' });

    const task = await exportDocument(api);
    expect(task).toMatchObject({ status: 'done', exportFileId: expect.stringMatching(/^export-/) });
    const fileId = task.exportFileId!;
    expect(await storage.rows.get(fileId)).toEqual({ fileId, contentType: 'application/pdf', size: EXPORTED.length, sha256: sha256(EXPORTED), inDatabase: false });
    expect(readFileSync(join(dir, objectKey(fileId))).equals(EXPORTED)).toBe(true);

    const { downloadUrl } = (await app.inject({ method: 'GET', url: `/files/${fileId}`, headers: asUser('lilei') })).json() as { downloadUrl: string };
    const got = await download(app, downloadUrl);
    expect(got.status).toBe(200);
    expect(got.body.equals(EXPORTED)).toBe(true);
    expect(got.headers['content-type']).toBe('application/pdf');
  });

  it('an export larger than FILE_MAX_SIZE fails its task with the reason, and no file is left', async () => {
    const { api } = await appWith({ FILE_MAX_SIZE: '16' });
    const files = async () => (await store().db.selectFrom('files').select('id').where('id', 'like', 'export-%').execute()).length;
    const before = await files();
    const task = await exportDocument(api);
    expect(task).toMatchObject({ status: 'failed', message: expect.stringContaining('larger than FILE_MAX_SIZE') });
    expect(await files()).toBe(before);
  });
});
