import type { S3Client } from '@aws-sdk/client-s3';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import type { FastifyInstance } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DownloadLinks } from '../../src/auth/download-link.js';
import { readStorageConfig } from '../../src/config/storage.js';
import { FileStorage } from '../../src/storage/file-storage.js';
import { objectKey } from '../../src/storage/object-key.js';
import { createS3Client, S3_PART_BYTES, S3Backend } from '../../src/storage/s3-backend.js';
import { SqlFileObjects } from '../../src/store/files/file-objects.js';
import { asUser, makeTestConfig } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { describeWithS3rver, startS3rver, TEST_BUCKET, type S3TestServer } from './s3rver-harness.js';
import { download, putContent, seedStorageFixture, storageApp } from './storage-fixture.js';

const config = makeTestConfig();
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** Over two parts: lib-storage sends it as a multipart upload of three parts. */
const BIG = randomBytes(2 * S3_PART_BYTES + 123_457);
const inChunks = (bytes: Buffer, size = 256 * 1024) => Readable.from(Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size)));

describeWithS3rver('S3 back end against s3rver', () => {
  let server: S3TestServer;
  beforeAll(async () => {
    server = await startS3rver();
  });
  afterAll(async () => {
    await server?.close();
  });

  describeEachStore('uploads, presigned links and refusals', (store) => {
    const prefix = `s3-${randomBytes(4).toString('hex')}`;
    /** Every S3 command the back end sends, by name. */
    const commands: string[] = [];
    let now = Date.now();
    let app: FastifyInstance;
    let storage: FileStorage;
    let client: S3Client;

    /** A storage over an S3 client that records its commands, with the clock `now` and the given variables. */
    const s3Storage = (env: Record<string, string> = {}) => {
      const settings = readStorageConfig((name) => ({ ...server.env(prefix), ...env })[name]);
      const s3 = createS3Client(settings.s3);
      s3.middlewareStack.add(
        (next, context) => async (args) => {
          commands.push(String(context.commandName));
          return next(args);
        },
        { step: 'initialize' },
      );
      return new FileStorage(new SqlFileObjects(store().db), new S3Backend(s3, TEST_BUCKET, prefix), new DownloadLinks(config.tokenSecret, config.publicUrl), {
        maxUploadBytes: settings.maxUploadBytes,
        presignTtlSeconds: settings.presignTtlSeconds,
        now: () => now,
      });
    };
    const stored = async (fileId: string) =>
      client.send(new HeadObjectCommand({ Bucket: TEST_BUCKET, Key: `${prefix}/${objectKey(fileId)}` })).then(
        (head) => Number(head.ContentLength),
        () => undefined,
      );
    const downloadUrl = async (fileId: string) => (await app.inject({ method: 'GET', url: `/files/${fileId}`, headers: asUser('zhang') })).json().downloadUrl as string;

    beforeAll(async () => {
      await seedStorageFixture(store());
      storage = s3Storage();
      app = await storageApp(store(), storage);
      client = createS3Client(readStorageConfig((name) => server.env(prefix)[name]).s3);
    });
    afterAll(async () => {
      await app.close();
      await storage.close();
      client.destroy();
    });

    it('a file over the part size goes up in parts, streamed, and comes back whole through the presigned link', async () => {
      commands.length = 0;
      const response = await putContent(app, 'contract', inChunks(BIG), { 'content-type': 'application/pdf', 'transfer-encoding': 'chunked' });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toMatchObject({ size: BIG.length, sha256: sha256(BIG), contentType: 'application/pdf' });
      expect(commands.filter((name) => name.includes('Multipart') || name === 'UploadPartCommand')).toEqual([
        'CreateMultipartUploadCommand',
        'UploadPartCommand',
        'UploadPartCommand',
        'UploadPartCommand',
        'CompleteMultipartUploadCommand',
      ]);
      expect(await stored('contract')).toBe(BIG.length);

      const url = new URL(await downloadUrl('contract'));
      expect(url.origin).toBe(server.endpoint);
      expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
      expect(url.searchParams.get('response-content-type')).toBe('application/pdf');
      const got = await download(app, url.toString());
      expect(got.status).toBe(200);
      expect(got.headers['content-length']).toBe(String(BIG.length));
      expect(got.headers['content-disposition']).toBe(`attachment; filename="__.docx"; filename*=UTF-8''%E5%90%88%E5%90%8C.docx`);
      expect(sha256(got.body)).toBe(sha256(BIG));
      const range = await download(app, url.toString(), { range: `bytes=${S3_PART_BYTES - 2}-${S3_PART_BYTES + 1}` });
      expect(range.status).toBe(206);
      expect(range.body.equals(BIG.subarray(S3_PART_BYTES - 2, S3_PART_BYTES + 2))).toBe(true);
    });

    it('a presigned link answers uploaded HTML or SVG as a download, never as a page of the bucket (S3 cannot add nosniff)', async () => {
      for (const type of ['text/html; charset=utf-8', 'image/svg+xml']) {
        const response = await putContent(app, 'manual', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), { 'content-type': type });
        expect(response.statusCode).toBeLessThan(300);
        const url = new URL(await downloadUrl('manual'));
        expect(url.searchParams.get('response-content-type')).toBe('application/octet-stream');
        const got = await download(app, url.toString());
        expect(got.status).toBe(200);
        expect(got.headers['content-type']).toBe('application/octet-stream');
        expect(got.headers['content-disposition']).toMatch(/^attachment;/);
      }
    });

    it('a multipart upload cut off by FILE_MAX_SIZE is aborted: 413, and the stored object is still the old one', async () => {
      // Room for two whole parts: the upload has begun (parts sent) when the third runs past the limit.
      const limited = s3Storage({ FILE_MAX_SIZE: `${2 * S3_PART_BYTES + 1000}B` });
      const limitedApp = await storageApp(store(), limited);
      try {
        commands.length = 0;
        const response = await putContent(limitedApp, 'contract', inChunks(randomBytes(3 * S3_PART_BYTES)), { 'transfer-encoding': 'chunked', 'content-type': 'application/pdf' });
        expect(response.statusCode).toBe(413);
        expect(commands).toContain('UploadPartCommand');
        expect(commands).toContain('AbortMultipartUploadCommand');
        expect(commands).not.toContain('CompleteMultipartUploadCommand');
        expect(await stored('contract')).toBe(BIG.length);
        expect(sha256((await download(app, await downloadUrl('contract'))).body)).toBe(sha256(BIG));

        const fresh = await putContent(limitedApp, 'bare', inChunks(randomBytes(3 * S3_PART_BYTES)), { 'transfer-encoding': 'chunked', 'content-type': 'text/plain' });
        expect(fresh.statusCode).toBe(413);
        expect(await stored('bare')).toBeUndefined();
      } finally {
        await limitedApp.close();
        await limited.close();
      }
    });

    it('a presigned link expires: signed an hour ago with the five-minute default, the store refuses it', async () => {
      now = Date.now() - 3600_000;
      const stale = await downloadUrl('contract');
      now = Date.now();
      const refused = await download(app, stale);
      expect(refused.status).toBe(403);
      expect(refused.body.toString()).toMatch(/<Code>AccessDenied<\/Code><Message>Request has expired/);
      expect((await download(app, await downloadUrl('contract'))).status).toBe(200);
    });

    it('S3_PRESIGN_TTL sets the lifetime of the links', async () => {
      const short = s3Storage({ S3_PRESIGN_TTL: '90s' });
      try {
        const url = new URL(await short.downloadUrl({ id: 'contract', name: '合同', ext: 'docx' }));
        expect(url.searchParams.get('X-Amz-Expires')).toBe('90');
        now = Date.now() - 91_000;
        expect((await download(app, await short.downloadUrl({ id: 'contract', name: '合同', ext: 'docx' }))).status).toBe(403);
      } finally {
        now = Date.now();
        await short.close();
      }
    });

    it('a link signed with credentials the store does not know is refused', async () => {
      const stranger = s3Storage({ AWS_ACCESS_KEY_ID: 'NOT-AN-ACCOUNT', AWS_SECRET_ACCESS_KEY: 'whatever' });
      try {
        const refused = await download(app, await stranger.downloadUrl({ id: 'contract', name: '合同', ext: 'docx' }));
        expect(refused.status).toBe(403);
        expect(refused.body.toString()).toContain('<Code>InvalidAccessKeyId</Code>');
      } finally {
        await stranger.close();
      }
    });

    it('bytes that the back end lost are a 404 for the collab-host link, not a 500', async () => {
      const link = new DownloadLinks(config.tokenSecret, config.publicUrl).linkFor('contract');
      await new S3Backend(client, TEST_BUCKET, prefix).delete('contract');
      const gone = await download(app, link);
      expect(gone.status).toBe(404);
      expect(JSON.parse(gone.body.toString()).error.code).toBe('content_not_found');
    });
  });
});
