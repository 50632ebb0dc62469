import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readStorageConfig } from '../../src/config/storage.js';
import { DatabaseBackend } from '../../src/storage/database-backend.js';
import type { FileStorage } from '../../src/storage/file-storage.js';
import { FsBackend } from '../../src/storage/fs-backend.js';
import { objectKey } from '../../src/storage/object-key.js';
import { openBackend } from '../../src/storage/open-backend.js';
import { measure, migrateObjects, verifyObjects } from '../../src/storage/storage-migration.js';
import { SqlFileObjects } from '../../src/store/files/file-objects.js';
import { MANUAL_BYTES } from '../directory/fixture-extras.js';
import { describeEachStore } from '../helpers/stores.js';
import { describeWithS3rver, startS3rver, type S3TestServer } from './s3rver-harness.js';
import { seedStorageFixture, storageFromEnv } from './storage-fixture.js';

const CONTRACT = randomBytes(70_000);
const BARE = Buffer.from('bare, first version\n');
const BARE_2 = Buffer.from('bare, uploaded after the switch\n');

const root = mkdtempSync(join(tmpdir(), 'ch-migrate-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The bytes a storage serves for a file, or undefined. */
async function served(storage: FileStorage, fileId: string): Promise<Buffer | undefined> {
  const opened = await storage.open(fileId);
  if (!opened) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of await opened.bytes.stream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const put = (storage: FileStorage, fileId: string, bytes: Buffer) => storage.put(fileId, Readable.from([bytes]), { contentType: 'application/octet-stream' });

describeEachStore('storage migrate and verify', (store) => {
  let dir: string;
  let database: FileStorage;
  let onDisk: FileStorage;
  beforeAll(async () => {
    dir = mkdtempSync(join(root, 'fs-'));
    await seedStorageFixture(store());
    database = storageFromEnv(store(), {});
    onDisk = storageFromEnv(store(), { FILE_STORAGE: `fs:${dir}` });
    expect((await put(database, 'contract', CONTRACT)).ok).toBe(true);
    expect((await put(database, 'bare', BARE)).ok).toBe(true);
  });
  afterAll(async () => {
    await database.close();
    await onDisk.close();
  });

  it('database -> fs:DIR while FILE_STORAGE=database: a dry run copies nothing; the run copies and checks every file, rows unchanged', async () => {
    const target = new FsBackend(dir);
    const dry = await migrateObjects(database, target, { dryRun: true });
    expect(dry).toEqual({ copied: 3, bytes: CONTRACT.length + BARE.length + MANUAL_BYTES.length, inPlace: 0, handedOver: 0, problems: [] });
    expect(readdirSync(dir)).toEqual([]);

    const report = await migrateObjects(database, target);
    expect(report).toEqual({ ...dry });
    expect(readFileSync(join(dir, objectKey('contract'))).equals(CONTRACT)).toBe(true);
    // The running server (FILE_STORAGE=database) still reads the rows, which keep their bytes.
    expect((await database.rows.get('contract'))?.inDatabase).toBe(true);
    expect((await served(database, 'manual'))?.equals(MANUAL_BYTES)).toBe(true);
  });

  it('after the switch to fs:DIR, rows that hold their bytes are still served; migrating again hands them over to the directory', async () => {
    expect((await served(onDisk, 'contract'))?.equals(CONTRACT)).toBe(true);
    expect((await put(onDisk, 'bare', BARE_2)).ok).toBe(true);
    expect((await onDisk.rows.get('bare'))?.inDatabase).toBe(false);

    const report = await migrateObjects(onDisk, onDisk.backend);
    expect(report).toMatchObject({ copied: 2, inPlace: 1, handedOver: 2, problems: [] });
    for (const fileId of ['manual', 'contract', 'bare']) {
      expect((await onDisk.rows.get(fileId))?.inDatabase, fileId).toBe(false);
      expect(await onDisk.rows.readInline(fileId), fileId).toBeUndefined();
    }
    expect((await served(onDisk, 'bare'))?.equals(BARE_2)).toBe(true);
    expect(await verifyObjects(onDisk)).toEqual({ checked: 3, bytes: CONTRACT.length + BARE_2.length + MANUAL_BYTES.length, problems: [] });
    // Switched back without a migration, collab-host finds no bytes where the rows say: a 404, and verify says why.
    expect(await served(database, 'contract')).toBeUndefined();
    expect((await verifyObjects(database)).problems).toHaveLength(3);
  });

  it('bytes that differ from their recorded SHA-256 are reported by verify, and migrate does not copy them', async () => {
    writeFileSync(join(dir, objectKey('contract')), Buffer.from('tampered'));
    const verified = await verifyObjects(onDisk);
    expect(verified.problems).toEqual([{ fileId: 'contract', problem: expect.stringMatching(/holds 8 bytes with SHA-256 [0-9a-f]{64}; recorded: 70000 bytes/) }]);

    const elsewhere = mkdtempSync(join(root, 'fs-'));
    const report = await migrateObjects(onDisk, new FsBackend(elsewhere));
    expect(report.copied).toBe(2);
    expect(report.problems).toEqual([{ fileId: 'contract', problem: expect.stringContaining('not the recorded') }]);
    expect(readdirSync(join(elsewhere, objectKey('contract').slice(0, 2)))).toEqual([]);
    writeFileSync(join(dir, objectKey('contract')), CONTRACT);
  });

  it('fs:DIR -> database hands every file over to its row at once; with FILE_STORAGE=database, --from says where the bytes are', async () => {
    // As if FILE_STORAGE had already been switched to the database: the rows point outside it.
    const lost = await migrateObjects(database, new DatabaseBackend(database.rows));
    expect(lost.problems.map((problem) => problem.problem)).toEqual(Array(3).fill(expect.stringContaining('--from')));

    const report = await migrateObjects(database, new DatabaseBackend(database.rows), { from: new FsBackend(dir) });
    expect(report).toMatchObject({ copied: 3, handedOver: 3, problems: [] });
    expect((await served(database, 'contract'))?.equals(CONTRACT)).toBe(true);
    expect((await served(database, 'bare'))?.equals(BARE_2)).toBe(true);
    expect(await verifyObjects(database)).toMatchObject({ checked: 3, problems: [] });
  });

  it('a file written again while it is copied is reported, never overwritten with the older bytes', async () => {
    const rows = new SqlFileObjects(store().db);
    const object = (await rows.get('bare'))!;
    expect(await rows.moveBytes('bare', 'not-its-hash', null)).toBe(false);
    expect(await rows.get('bare')).toEqual(object);
    expect(await measure(Readable.from([BARE_2]))).toEqual({ size: BARE_2.length, sha256: object.sha256 });
  });
});

describeWithS3rver('storage migrate to and from s3rver', () => {
  let server: S3TestServer;
  beforeAll(async () => {
    server = await startS3rver();
  });
  afterAll(async () => {
    await server?.close();
  });

  describeEachStore('database <-> s3', (store) => {
    it('database -> s3:// (configured) keeps every hash (rows and the bytes in the bucket), and back to the database', async () => {
      await seedStorageFixture(store());
      const env = server.env(`migrate-${randomBytes(4).toString('hex')}`);
      const settings = readStorageConfig((name) => env[name]);
      const database = storageFromEnv(store(), {});
      const s3 = storageFromEnv(store(), env);
      const s3Source = openBackend(settings.location, settings.s3, database.rows);
      try {
        expect((await put(database, 'contract', CONTRACT)).ok).toBe(true);
        expect((await put(database, 'bare', BARE)).ok).toBe(true);
        const recorded = await database.rows.list({ limit: 10 });
        expect(recorded.map((object) => object.fileId)).toEqual(['bare', 'contract', 'manual']);
        /** Every row records what it did before the move, and the bytes where it says hash to it. */
        const everyHashKept = async (storage: FileStorage, inDatabase: boolean) => {
          expect(await storage.rows.list({ limit: 10 })).toEqual(recorded.map((object) => ({ ...object, inDatabase })));
          for (const object of recorded) {
            const held = await (inDatabase ? storage.holderOf({ ...object, inDatabase }) : s3Source)!.open(object.fileId);
            expect(await measure(await held!.stream()), object.fileId).toEqual({ size: object.size, sha256: object.sha256 });
          }
        };

        const report = await migrateObjects(s3, s3.backend);
        expect(report).toMatchObject({ copied: 3, handedOver: 3, problems: [] });
        await everyHashKept(s3, false);
        expect((await served(s3, 'contract'))?.equals(CONTRACT)).toBe(true);
        expect(await verifyObjects(s3)).toMatchObject({ checked: 3, problems: [] });

        const back = await migrateObjects(database, new DatabaseBackend(database.rows), { from: s3Source });
        expect(back).toMatchObject({ copied: 3, handedOver: 3, problems: [] });
        await everyHashKept(database, true);
        expect((await served(database, 'manual'))?.equals(MANUAL_BYTES)).toBe(true);
      } finally {
        await Promise.all([database.close(), s3.close(), s3Source.close()]);
      }
    });
  });
});
