import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { FastifyInstance } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DownloadLinks } from '../../src/auth/download-link.js';
import type { FileStorage } from '../../src/storage/file-storage.js';
import { formatTime } from '../../src/directory/time.js';
import { objectKey } from '../../src/storage/object-key.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { SqlFileObjects } from '../../src/store/files/file-objects.js';
import { MANUAL_BYTES } from '../directory/fixture-extras.js';
import { asUser, makeTestConfig } from '../helpers/app.js';
import { describeEachStore } from '../helpers/stores.js';
import { describeWithS3rver, S3RVER_KEY, startS3rver, TEST_BUCKET, type S3TestServer } from './s3rver-harness.js';
import { ADMIN, download, DOCX_TYPE, putContent, seedStorageFixture, storageApp, storageFromEnv } from './storage-fixture.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const config = makeTestConfig();
const links = new DownloadLinks(config.tokenSecret, config.publicUrl);
const DOCX = Buffer.concat([Buffer.from('PK\u0003\u0004'), randomBytes(3000)]);

/** One back end as the contract suite sees it: its variables, and where its bytes of a file can be looked at. */
interface BackendUnderTest {
  env: Record<string, string>;
  /** The bytes the back end itself holds for the file (bypassing collab-host), or undefined. */
  heldBytes(fileId: string): Promise<Buffer | undefined>;
  /** Whether `downloadUrl` is presigned by the store (S3) rather than collab-host's own link. */
  presigned: boolean;
}

/**
 * What every back end must do, through the management API and the callbacks, on one store: upload,
 * replace, serve (type, name, ranges, HEAD), limits, refusals and removal.
 */
function contentContract(makeBackend: (store: OpenDatabase) => BackendUnderTest) {
  describeEachStore('stored content contract', (store) => {
    let app: FastifyInstance;
    let storage: FileStorage;
    let under: BackendUnderTest;
    const backend = () => under;
    // Real time, to the second: S3 checks a presigned link's expiry against its own clock.
    let clock = Math.floor(Date.now() / 1000) * 1000;
    const at = (plusSeconds: number) => formatTime(clock + plusSeconds * 1000);
    let start = '';
    beforeAll(async () => {
      under = makeBackend(store());
      await seedStorageFixture(store());
      storage = storageFromEnv(store(), { ...under.env, FILE_MAX_SIZE: '64KB' }, () => clock);
      start = at(0);
      app = await storageApp(store(), storage);
    });
    afterAll(async () => {
      await app.close();
      await storage.close();
    });
    const preview = async (fileId: string) => (await app.inject({ method: 'GET', url: `/files/${fileId}`, headers: asUser('zhang') })).json();
    const updatedAtOf = async (fileId: string) =>
      ((await app.inject({ method: 'GET', url: '/files?limit=50', headers: asUser('zhang') })).json() as Array<{ id: string; updatedAt: string }>).find(
        (file) => file.id === fileId,
      )?.updatedAt;

    it('an upload is recorded (size, type from the extension, SHA-256) and previewable through downloadUrl with the UTF-8 name', async () => {
      const response = await putContent(app, 'contract', DOCX);
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({ fileId: 'contract', size: DOCX.length, contentType: DOCX_TYPE, sha256: sha256(DOCX), updatedAt: start });
      expect(await updatedAtOf('contract')).toBe(start);
      expect(await backend().heldBytes('contract')).toEqual(DOCX);

      const { downloadUrl } = await preview('contract');
      expect(downloadUrl.startsWith(config.publicUrl)).toBe(!backend().presigned);
      const got = await download(app, downloadUrl);
      expect(got.status).toBe(200);
      expect(got.body.equals(DOCX)).toBe(true);
      expect(got.headers['content-type']).toBe(DOCX_TYPE);
      expect(got.headers['content-disposition']).toBe(`attachment; filename="__.docx"; filename*=UTF-8''%E5%90%88%E5%90%8C.docx`);
      if (!backend().presigned) {
        // Served by collab-host itself: never sniffed, and opened directly it runs sandboxed (issue 20 item 10).
        expect(got.headers['x-content-type-options']).toBe('nosniff');
        expect(got.headers['content-security-policy']).toBe('sandbox');
      }
    });

    it('a replacement answers 200, keeps the given Content-Type, and is what is served from then on', async () => {
      clock += 1000;
      const text = Buffer.from('合同 v2: plain text now\n');
      const response = await putContent(app, 'contract', text, { 'content-type': 'text/plain; charset=utf-8' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ size: text.length, contentType: 'text/plain; charset=utf-8', sha256: sha256(text), updatedAt: at(0) });
      const got = await download(app, (await preview('contract')).downloadUrl);
      expect(got.body.equals(text)).toBe(true);
      expect(got.headers['content-type']).toBe('text/plain; charset=utf-8');
      // A JSON body is bytes like any other: not parsed, stored exactly.
      const json = Buffer.from('{"not": "parsed",');
      expect((await putContent(app, 'contract', json, { 'content-type': 'application/json' })).json()).toMatchObject({ size: json.length, contentType: 'application/json' });
      expect((await download(app, (await preview('contract')).downloadUrl)).body.equals(json)).toBe(true);
      expect((await putContent(app, 'contract', DOCX)).statusCode).toBe(200);
    });

    it('serves single byte ranges (206), refuses ranges past the end (416), and answers HEAD with the headers only', async () => {
      const link = links.linkFor('contract');
      const part = await download(app, link, { range: 'bytes=2-9' });
      expect(part.status).toBe(206);
      expect(part.headers['content-range']).toBe(`bytes 2-9/${DOCX.length}`);
      expect(part.headers['content-length']).toBe('8');
      expect(part.body.equals(DOCX.subarray(2, 10))).toBe(true);

      const tail = await download(app, link, { range: 'bytes=-5' });
      expect(tail.body.equals(DOCX.subarray(DOCX.length - 5))).toBe(true);

      const past = await download(app, link, { range: `bytes=${DOCX.length}-` });
      expect(past.status).toBe(416);
      expect(past.headers['content-range']).toBe(`bytes */${DOCX.length}`);
      expect(JSON.parse(past.body.toString()).error.code).toBe('range_not_satisfiable');

      const stale = await download(app, link, { range: 'bytes=0-3', 'if-range': '"another-version"' });
      expect(stale.status).toBe(200);
      expect(stale.body.equals(DOCX)).toBe(true);
      expect(stale.headers.etag).toBe(`"${sha256(DOCX)}"`);

      const head = await download(app, link, {}, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(String(DOCX.length));
      expect(head.body.length).toBe(0);
    });

    it('a body over FILE_MAX_SIZE is 413, declared or streamed, and keeps nothing: the old bytes stay, a new file gets none', async () => {
      const big = randomBytes(64 * 1024 + 1);
      const declared = await putContent(app, 'contract', big);
      expect(declared.statusCode).toBe(413);
      expect(declared.json().error.code).toBe('payload_too_large');
      const streamed = await putContent(app, 'bare', Readable.from([big.subarray(0, 40_000), big.subarray(40_000)]), {
        'content-type': 'text/plain',
        'transfer-encoding': 'chunked',
      });
      expect(streamed.statusCode).toBe(413);

      expect((await download(app, (await preview('contract')).downloadUrl)).body.equals(DOCX)).toBe(true);
      expect((await preview('bare')).downloadUrl).toBe('');
      expect(await backend().heldBytes('bare')).toBeUndefined();
      // A streamed body within the limit is fine.
      const small = await putContent(app, 'bare', Readable.from([Buffer.from('hello '), Buffer.from('world')]), { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' });
      expect(small.json()).toMatchObject({ size: 11, sha256: sha256(Buffer.from('hello world')) });
    });

    it('refuses what is not a stored file with the documented error shape, and changes nothing', async () => {
      const before = await updatedAtOf('orphan');
      const cases: Array<[string, Record<string, string>, number, string]> = [
        ['nope', {}, 404, 'file_not_found'],
        ['orphan', {}, 409, 'not_a_third_party_file'],
        ['contract', { 'content-type': 'not a type' }, 415, 'unsupported_media_type'],
        ['contract', { 'content-type': 'text/plain; charset' }, 400, 'invalid_content_type'],
      ];
      for (const [fileId, headers, status, code] of cases) {
        const response = await putContent(app, fileId, Buffer.from('x'), headers);
        expect(response.statusCode, fileId).toBe(status);
        expect(response.json()).toEqual({ error: { code, message: expect.any(String) } });
      }
      const unauthorised = await app.inject({ method: 'PUT', url: '/api/files/contract/content', payload: 'x' });
      expect(unauthorised.statusCode).toBe(401);
      expect(await updatedAtOf('orphan')).toBe(before);
      expect((await download(app, (await preview('contract')).downloadUrl)).body.equals(DOCX)).toBe(true);
    });

    it('bytes put in the database row by a snapshot import are served whatever the back end', async () => {
      const { downloadUrl } = await preview('manual');
      expect(downloadUrl.startsWith(config.publicUrl)).toBe(true);
      expect((await download(app, downloadUrl)).body.equals(MANUAL_BYTES)).toBe(true);
    });

    it('DELETE removes the bytes (204): no downloadUrl, the old link is 404, the back end holds nothing; again is 404', async () => {
      clock += 1000;
      const link = links.linkFor('contract');
      const removed = await app.inject({ method: 'DELETE', url: '/api/files/contract/content', headers: ADMIN });
      expect(removed.statusCode).toBe(204);
      expect(await updatedAtOf('contract')).toBe(at(0));
      expect((await preview('contract')).downloadUrl).toBe('');
      expect((await download(app, link)).status).toBe(404);
      expect(await backend().heldBytes('contract')).toBeUndefined();
      for (const [fileId, status, code] of [
        ['contract', 404, 'content_not_found'],
        ['nope', 404, 'file_not_found'],
        ['orphan', 409, 'not_a_third_party_file'],
      ] as const) {
        const again = await app.inject({ method: 'DELETE', url: `/api/files/${fileId}/content`, headers: ADMIN });
        expect(again.statusCode, fileId).toBe(status);
        expect(again.json().error.code).toBe(code);
      }
    });
  });
}

describeEachStore('FILE_STORAGE=database', (store) => {
  it('keeps the bytes in the row', async () => {
    const storage = storageFromEnv(store(), {});
    expect(storage.backend.location).toEqual({ kind: 'database' });
    await storage.close();
  });
});
contentContract((store) => ({
  env: {},
  presigned: false,
  heldBytes: (fileId) => new SqlFileObjects(store.db).readInline(fileId),
}));

const fsRoot = mkdtempSync(join(tmpdir(), 'ch-fs-storage-'));
afterAll(() => rmSync(fsRoot, { recursive: true, force: true }));
contentContract(() => {
  const dir = mkdtempSync(join(fsRoot, 'store-'));
  return {
    env: { FILE_STORAGE: `fs:${dir}` },
    presigned: false,
    heldBytes: async (fileId) => {
      const path = join(dir, objectKey(fileId));
      return existsSync(path) ? readFileSync(path) : undefined;
    },
  };
});

describeWithS3rver('FILE_STORAGE=s3:// against s3rver', () => {
  let server: S3TestServer;
  let client: S3Client;
  beforeAll(async () => {
    server = await startS3rver();
    client = new S3Client({ endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: S3RVER_KEY, secretAccessKey: S3RVER_KEY } });
  });
  afterAll(async () => {
    client?.destroy();
    await server?.close();
  });
  contentContract(() => {
    const prefix = `run-${randomBytes(4).toString('hex')}`;
    return {
      env: server.env(prefix),
      presigned: true,
      heldBytes: async (fileId) => {
        try {
          const object = await client.send(new GetObjectCommand({ Bucket: TEST_BUCKET, Key: `${prefix}/${objectKey(fileId)}` }));
          return Buffer.from(await object.Body!.transformToByteArray());
        } catch {
          return undefined;
        }
      },
    };
  });
});

it('the filesystem back end leaves no partial files behind', () => {
  const leftovers = readdirSync(fsRoot, { recursive: true }).filter((name) => String(name).endsWith('.partial'));
  expect(leftovers).toEqual([]);
});
