import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import type { FileStorage } from '../../src/storage/file-storage.js';
import { objectKey } from '../../src/storage/object-key.js';
import { listOrphans } from '../../src/storage/orphans.js';
import { describeEachStore } from '../helpers/stores.js';
import { describeWithS3rver, startS3rver, type S3TestServer } from './s3rver-harness.js';
import { seedStorageFixture, storageFromEnv } from './storage-fixture.js';

const put = (storage: FileStorage, fileId: string, bytes: Buffer) => storage.put(fileId, Readable.from([bytes]), {});
const keys = async (storage: FileStorage) => (await listOrphans(storage))?.map((object) => object.key).sort();

const root = mkdtempSync(join(tmpdir(), 'ch-orphans-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * What a file's removal leaves in each back end, and that `storage orphans` finds exactly that: not the
 * objects of stored files, not what a replaced or deleted content left (nothing).
 */
function orphanSuite(envOf: () => Record<string, string>, options: { partialFiles?: boolean } = {}) {
  describeEachStore('storage orphans', (store) => {
    let storage: FileStorage;
    let env: Record<string, string>;
    beforeAll(async () => {
      await seedStorageFixture(store());
      env = envOf();
      storage = storageFromEnv(store(), env);
    });
    afterAll(async () => {
      await storage.close();
    });

    it('lists the object of a file removed from the directory, and nothing of replaced or deleted contents', async () => {
      expect(await keys(storage)).toEqual([]);
      for (const fileId of ['contract', 'bare']) expect((await put(storage, fileId, randomBytes(2_000))).ok).toBe(true);
      expect((await put(storage, 'contract', randomBytes(3_000))).ok).toBe(true); // replaced: written over
      expect((await storage.remove('contract')).ok).toBe(true); // deleted through the API: bytes go too
      expect(await keys(storage)).toEqual([]);

      const removed = await directoryChanges(store()).apply({ remove: { files: ['bare'] } }, { source: 'api' });
      expect(removed.ok).toBe(true);
      const orphans = await listOrphans(storage);
      expect(orphans).toEqual([{ key: objectKey('bare'), address: expect.stringContaining(objectKey('bare')), size: 2_000, modifiedAt: expect.any(Number) }]);
      expect(Math.abs(orphans![0]!.modifiedAt - Date.now())).toBeLessThan(60_000);
    });

    // Only the filesystem keeps a temporary file while an upload is written (S3 has no such thing to list).
    if (options.partialFiles) {
      it('fs:DIR: the temporary file of an upload that crashed is listed; files outside the key folders are not', async () => {
        const dir = env.FILE_STORAGE!.slice('fs:'.length);
        const [folder, name] = objectKey('gone').split('/') as [string, string];
        mkdirSync(join(dir, folder), { recursive: true });
        writeFileSync(join(dir, folder, `${name}.0123456789ab.partial`), 'half');
        writeFileSync(join(dir, 'README'), 'not ours');
        expect(await keys(storage)).toEqual([objectKey('bare'), `${objectKey('gone')}.0123456789ab.partial`].sort());
      });
    }
  });
}

describeEachStore('storage orphans on the database back end', (store) => {
  it('has nothing to list: the bytes are rows', async () => {
    const storage = storageFromEnv(store(), {});
    expect(await listOrphans(storage)).toBeUndefined();
    await storage.close();
  });
});

orphanSuite(() => ({ FILE_STORAGE: `fs:${mkdtempSync(join(root, 'fs-'))}` }), { partialFiles: true });

describeWithS3rver('storage orphans on s3rver', () => {
  let server: S3TestServer;
  beforeAll(async () => {
    server = await startS3rver();
  });
  afterAll(async () => {
    await server?.close();
  });
  orphanSuite(() => server.env(`orphans-${randomBytes(4).toString('hex')}`));
});
