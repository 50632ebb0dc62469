import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ObjectBackend } from '../storage/object-backend.js';
import { objectKey } from '../storage/object-key.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { openStoreSnapshot, SnapshotUnsupportedError, type StoreRow } from '../store/backup/store-snapshot.js';
import { HashedFileWriter } from './hashed-file.js';
import { BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BackupRefused, MANIFEST_FILE, type BackupContents, type BackupManifest } from './manifest.js';
import { encodeRow } from './row-codec.js';

/** Rows read per batch; file_contents rows (which carry bytes) a few at a time. */
const ROW_BATCH = 500;
const CONTENT_BATCH = 8;

export interface TakeBackupOptions {
  store: OpenDatabase;
  /** The URL the store was opened from (an SQLite snapshot opens the file again). */
  url: string;
  /** The configured file storage back end (FILE_STORAGE): bytes under `fs:` are copied into the backup. */
  backend: ObjectBackend;
  /** The backup directory to create; it must not exist. */
  out: string;
  /** The collab-host version, recorded in the manifest. */
  version: string;
  now?: () => Date;
}

/**
 * Takes a backup of the whole store while the service runs: every table as of one consistent moment (see
 * StoreSnapshot), one JSON line a row under `tables/`, the bytes of stored files under `contents/` (from
 * their rows, or from `fs:` storage), and `manifest.json` last. It is written beside `out` under a
 * temporary name and renamed into place when complete, so a backup directory is never half written.
 */
export async function takeBackup(options: TakeBackupOptions): Promise<BackupManifest> {
  const now = options.now ?? (() => new Date());
  if (await exists(options.out)) throw new BackupRefused('exists', `backup: ${options.out} already exists; choose a new path`);
  await mkdir(dirname(options.out), { recursive: true });
  const partial = `${options.out}.partial-${randomBytes(4).toString('hex')}`;
  await mkdir(join(partial, 'tables'), { recursive: true });
  await mkdir(join(partial, 'contents'), { recursive: true });
  try {
    const manifest = await writeBackup(options, partial, now);
    await writeFile(join(partial, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    await rename(partial, options.out);
    return manifest;
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    if (error instanceof SnapshotUnsupportedError) throw new BackupRefused('unsupported', `backup: ${error.message}`);
    throw error;
  }
}

async function writeBackup(options: TakeBackupOptions, dir: string, now: () => Date): Promise<BackupManifest> {
  const startedAt = now().toISOString();
  const snapshot = await openStoreSnapshot(options.store, options.url);
  const location = options.backend.location.kind;
  const contents: BackupContents = { location, included: 0, bytes: 0, notIncluded: 0, changedDuringBackup: 0 };
  const tables: BackupManifest['tables'] = {};
  try {
    for (const table of snapshot.tables) {
      const file = `tables/${table}.ndjson`;
      const writer = new HashedFileWriter(join(dir, file));
      let rows = 0;
      try {
        for await (const batch of snapshot.rows(table, table === 'file_contents' ? CONTENT_BATCH : ROW_BATCH)) {
          for (const row of batch) {
            if (table === 'file_contents') await copyContent(row, options.backend, dir, contents);
            await writer.write(`${encodeRow(row)}\n`);
            rows += 1;
          }
        }
      } catch (error) {
        writer.abort();
        throw error;
      }
      tables[table] = { rows, file, ...(await writer.finish()) };
    }
    return {
      format: BACKUP_FORMAT,
      formatVersion: BACKUP_FORMAT_VERSION,
      version: options.version,
      dialect: options.store.dialect,
      startedAt,
      finishedAt: now().toISOString(),
      migrations: [...snapshot.migrations],
      tables,
      contents,
    };
  } finally {
    await snapshot.close();
  }
}

/**
 * Writes a stored file's bytes to `contents/<objectKey>` and takes them off its row: from the row itself,
 * or from the `fs:` directory. Bytes in a bucket stay there (counted as not included). Bytes under `fs:`
 * replaced after the snapshot's moment are taken as they are now, and the row records their size and hash.
 */
async function copyContent(row: StoreRow, backend: ObjectBackend, dir: string, contents: BackupContents): Promise<void> {
  const fileId = String(row.file_id);
  const inline = row.content;
  delete row.content;
  const target = join(dir, 'contents', objectKey(fileId));
  if (row.in_database === 1) {
    await mkdir(dirname(target), { recursive: true });
    const writer = new HashedFileWriter(target);
    await writer.write(Buffer.from(inline as Uint8Array));
    const written = await writer.finish();
    contents.included += 1;
    contents.bytes += written.bytes;
    return;
  }
  if (backend.location.kind !== 'fs') {
    contents.notIncluded += 1;
    return;
  }
  const opened = await backend.open(fileId);
  if (!opened) {
    // Removed since the snapshot's moment (or lost before it): the row stays, as the store had it.
    contents.changedDuringBackup += 1;
    return;
  }
  await mkdir(dirname(target), { recursive: true });
  const writer = new HashedFileWriter(target);
  try {
    for await (const chunk of (await opened.stream()) as AsyncIterable<Buffer>) await writer.write(chunk);
  } catch (error) {
    writer.abort();
    throw error;
  }
  const written = await writer.finish();
  if (written.sha256 !== row.sha256) {
    contents.changedDuringBackup += 1;
    row.sha256 = written.sha256;
    row.size = written.bytes;
  }
  contents.included += 1;
  contents.bytes += written.bytes;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw error;
    },
  );
}
