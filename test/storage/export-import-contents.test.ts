import type { FastifyInstance } from 'fastify';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { directoryChanges } from '../../src/directory-changes/directory-changes.js';
import { exportSnapshot } from '../../src/snapshot/export.js';
import { importSnapshot } from '../../src/snapshot/import.js';
import { ContentFolder } from '../../src/storage/content-folder.js';
import type { FileStorage } from '../../src/storage/file-storage.js';
import { storeImportedContents } from '../../src/storage/storage-migration.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { upsertFiles } from '../../src/store/directory-writes/directory-writer.js';
import { EXTRA_FILES, MANUAL_BYTES } from '../directory/fixture-extras.js';
import { asUser } from '../helpers/app.js';
import { dialects, openTestStore } from '../helpers/stores.js';
import { describeWithS3rver, startS3rver, type S3TestServer } from './s3rver-harness.js';
import { download, DOCX_TYPE, putContent, seedStorageFixture, storageApp, storageFromEnv } from './storage-fixture.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** Bytes of each stored file, and the media type each was stored with (bare's is not its extension's). */
const FILES = {
  contract: { bytes: Buffer.concat([Buffer.from('PK\u0003\u0004'), randomBytes(70_000)]), contentType: DOCX_TYPE },
  bare: { bytes: Buffer.from('名字,数量\n苹果,3\n'), contentType: 'text/csv; charset=gbk' },
  manual: { bytes: MANUAL_BYTES, contentType: 'application/pdf' },
};
const IDS = Object.keys(FILES) as Array<keyof typeof FILES>;

const root = mkdtempSync(join(tmpdir(), 'ch-export-contents-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * The storage fixture, made importable: `bare` gets a well-formed `ext` (the fixture's ".txt" is there to
 * test the callbacks) and bytes, as every stored file of type `file` without a downloadUrl needs.
 */
async function seed(store: OpenDatabase, app: FastifyInstance): Promise<void> {
  await seedStorageFixture(store);
  await upsertFiles(store.db, [{ ...EXTRA_FILES.find((file) => file.id === 'bare')!, ext: 'txt' }]);
  for (const id of ['contract', 'bare'] as const) {
    const response = await putContent(app, id, FILES[id].bytes, { 'content-type': FILES[id].contentType });
    expect(response.statusCode, response.body).toBe(201);
  }
}

/** What `collab-host export --out DIR/snapshot.json` does: the snapshot, its bytes in snapshot-contents/. */
async function exportTo(store: OpenDatabase, storage: FileStorage, dir: string): Promise<string> {
  const folder = new ContentFolder(storage, join(dir, 'snapshot-contents'), 'snapshot-contents');
  const snapshot = await exportSnapshot(store.db, { placeContent: (file) => folder.place(file) });
  await folder.writePlaced();
  const out = join(dir, 'snapshot.json');
  writeFileSync(out, JSON.stringify(snapshot));
  return out;
}

/** What `collab-host import FILE --replace` does: one transaction, then the bytes to FILE_STORAGE. */
async function importFrom(store: OpenDatabase, storage: FileStorage, out: string) {
  const snapshot = JSON.parse(readFileSync(out, 'utf8')) as { files: Array<{ id: string; contentFile?: string }> };
  const result = await importSnapshot(directoryChanges(store), snapshot, { replace: true, baseDir: join(out, '..'), maxContentBytes: storage.maxUploadBytes });
  if (!result.ok) return { result, stored: undefined };
  const stored = await storeImportedContents(
    storage,
    snapshot.files.filter((file) => file.contentFile !== undefined).map((file) => file.id),
  );
  return { result, stored };
}

/** A back end by name: its FILE_STORAGE variables. */
type BackendName = 'database' | 'fs' | 's3';

describeWithS3rver('export, then import --replace into a fresh store, restores every stored byte', () => {
  let server: S3TestServer;
  beforeAll(async () => {
    server = await startS3rver();
  });
  afterAll(async () => {
    await server?.close();
  });
  const envOf = (backend: BackendName): Record<string, string> => {
    if (backend === 'database') return {};
    if (backend === 'fs') return { FILE_STORAGE: `fs:${mkdtempSync(join(root, 'fs-'))}` };
    return server.env(`export-${randomBytes(4).toString('hex')}`);
  };

  for (const dialect of dialects) {
    describe(`[${dialect}]`, { timeout: 60_000 }, () => {
      const combinations: Array<[BackendName, BackendName]> = [
        ['database', 'fs'],
        ['fs', 's3'],
        ['s3', 'database'],
      ];
      for (const [from, to] of combinations) {
        it(`uploaded to ${from}, exported, imported into ${to}: same size, media type and SHA-256, served by downloadUrl`, async () => {
          const source = await openTestStore(dialect);
          const target = await openTestStore(dialect);
          const sourceStorage = storageFromEnv(source, envOf(from));
          const targetStorage = storageFromEnv(target, envOf(to));
          const sourceApp = await storageApp(source, sourceStorage);
          const targetApp = await storageApp(target, targetStorage);
          try {
            await seed(source, sourceApp);
            const recorded = await Promise.all(IDS.map((id) => sourceStorage.rows.get(id)));

            const dir = mkdtempSync(join(root, 'export-'));
            const { result, stored } = await importFrom(target, targetStorage, await exportTo(source, sourceStorage, dir));
            expect(result).toMatchObject({ ok: true, counts: { contents: 3 } });
            expect(stored?.problems).toEqual([]);

            for (const [index, id] of IDS.entries()) {
              const object = await targetStorage.rows.get(id);
              expect(object, id).toEqual({ ...recorded[index], inDatabase: to === 'database' });
              expect(object).toMatchObject({ size: FILES[id].bytes.length, sha256: sha256(FILES[id].bytes), contentType: FILES[id].contentType });

              const preview = (await targetApp.inject({ method: 'GET', url: `/files/${id}`, headers: asUser('zhang') })).json() as { downloadUrl: string };
              const got = await download(targetApp, preview.downloadUrl);
              expect(got.status, id).toBe(200);
              expect(sha256(got.body), id).toBe(sha256(FILES[id].bytes));
              expect(got.headers['content-type'], id).toBe(FILES[id].contentType);
            }
          } finally {
            await Promise.all([sourceApp.close(), targetApp.close()]);
            await Promise.all([sourceStorage.close(), targetStorage.close()]);
            await Promise.all([source.close(), target.close()]);
          }
        });
      }

      it('an export whose bytes were damaged, or are larger than FILE_MAX_SIZE, is refused and changes nothing', async () => {
        const source = await openTestStore(dialect);
        const target = await openTestStore(dialect);
        const sourceStorage = storageFromEnv(source, {});
        const targetStorage = storageFromEnv(target, {});
        const small = storageFromEnv(target, { FILE_MAX_SIZE: '1KB' });
        const sourceApp = await storageApp(source, sourceStorage);
        try {
          await seed(source, sourceApp);
          const dir = mkdtempSync(join(root, 'damaged-'));
          const out = await exportTo(source, sourceStorage, dir);
          const contentFile = (JSON.parse(readFileSync(out, 'utf8')) as { files: Array<{ id: string; contentFile?: string }> }).files.find(
            (file) => file.id === 'contract',
          )!.contentFile!;

          const tooLarge = await importFrom(target, small, out);
          expect(tooLarge.result).toMatchObject({ ok: false, status: 400, problems: [{ message: expect.stringContaining('larger than FILE_MAX_SIZE (1024 bytes)') }] });

          const damaged = Buffer.from(FILES.contract.bytes);
          damaged[100] = damaged[100]! ^ 0xff;
          writeFileSync(join(dir, contentFile), damaged);
          const refused = await importFrom(target, targetStorage, out);
          expect(refused.result).toMatchObject({
            ok: false,
            status: 400,
            problems: [{ path: expect.stringMatching(/^\$\.files\[\d+\]\.contentFile$/), message: expect.stringContaining('SHA-256') }],
          });
          expect(await targetStorage.rows.list({ limit: 10 })).toEqual([]);
          expect((await target.db.selectFrom('files').select('id').execute()).length).toBe(0);
        } finally {
          await sourceApp.close();
          await Promise.all([sourceStorage.close(), targetStorage.close(), small.close()]);
          await Promise.all([source.close(), target.close()]);
        }
      });
    });
  }
});
