import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { readStorageConfig } from '../../src/config/storage.js';
import type { FileStorage } from '../../src/storage/file-storage.js';
import { createFileStorage } from '../../src/storage/open-backend.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { upsertFiles } from '../../src/store/directory-writes/directory-writer.js';
import { SqlFileObjects } from '../../src/store/files/file-objects.js';
import { EXTRA_FILES, seedWithExtras } from '../directory/fixture-extras.js';
import { buildTestApp, makeTestConfig } from '../helpers/app.js';

export const ADMIN_KEY = 'storage-test-admin-key-0123';
export const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };
export const DOCX_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/**
 * The file callbacks' fixture (manual: a pdf whose bytes the snapshot import put in its row; bare: a file
 * without bytes; orphan: a document) plus `contract`, a third-party file named 合同 with extension docx
 * (its name lacks it), created by zhang in team acme.
 */
export async function seedStorageFixture(store: OpenDatabase): Promise<void> {
  await seedWithExtras(store.db);
  const base = EXTRA_FILES.find((file) => file.id === 'bare')!;
  await upsertFiles(store.db, [{ ...base, id: 'contract', name: '合同', ext: 'docx', teamId: 'acme', updatedAt: '2024-01-01T00:00:00Z' }]);
}

/** A file storage as FILE_STORAGE and the other variables in `env` configure it, with a settable clock. */
export function storageFromEnv(store: OpenDatabase, env: Record<string, string>, now: () => number = Date.now): FileStorage {
  const config = makeTestConfig();
  const storage = readStorageConfig((name) => env[name]);
  return createFileStorage({ storage, tokenSecret: config.tokenSecret, publicUrl: config.publicUrl }, new SqlFileObjects(store.db), { now });
}

export async function storageApp(store: OpenDatabase, fileStorage: FileStorage): Promise<FastifyInstance> {
  return buildTestApp(store, { adminApiKey: ADMIN_KEY }, { fileStorage });
}

export interface Download {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/**
 * GETs a downloadUrl as the platform would: collab-host's own links through the app, presigned links
 * from the S3 server over HTTP.
 */
export async function download(app: FastifyInstance, url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<Download> {
  const publicUrl = makeTestConfig().publicUrl;
  if (url.startsWith(publicUrl)) {
    const response = await app.inject({ method, url: url.slice(publicUrl.length), headers });
    return { status: response.statusCode, headers: response.headers as Record<string, string | undefined>, body: response.rawPayload };
  }
  const response = await fetch(url, { method, headers });
  return { status: response.status, headers: Object.fromEntries(response.headers), body: Buffer.from(await response.arrayBuffer()) };
}

export async function putContent(app: FastifyInstance, fileId: string, payload: Buffer | string | Readable, headers: Record<string, string> = {}) {
  return app.inject({ method: 'PUT', url: `/api/files/${encodeURIComponent(fileId)}/content`, headers: { ...ADMIN, ...headers }, payload });
}
