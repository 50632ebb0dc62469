import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ObjectBackend } from '../storage/object-backend.js';
import { objectKey } from '../storage/object-key.js';
import { RESTORED_LAST } from '../store/backup/backup-tables.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { RestoreTarget, type RestoreWriter } from '../store/backup/restore-target.js';
import type { StoreRow } from '../store/backup/store-snapshot.js';
import { lineBatches } from './hashed-file.js';
import { BackupRefused, type BackupManifest } from './manifest.js';
import { readBackup } from './read-backup.js';
import { decodeRow } from './row-codec.js';

const ROW_BATCH = 500;
const CONTENT_BATCH = 8;
const NO_BYTES = Buffer.alloc(0);

export interface RestoreBackupOptions {
  /** The backup directory. */
  path: string;
  /** The store to restore into, its migrations applied. */
  store: OpenDatabase;
  /** The configured file storage back end: bytes that were under `fs:` are written there (or into their rows for `database`). */
  backend: ObjectBackend;
  /** Replace what the store holds; without it a store holding anything is refused. */
  replace: boolean;
}

export interface RestoreSummary {
  manifest: BackupManifest;
  rows: number;
  contents: number;
}

/**
 * Restores a backup into a store: checks the whole backup first (readBackup), refuses a store that holds
 * anything unless `replace`, then writes every table in one transaction and checks each table's row count
 * against the manifest; on any failure the store is left as it was (file bytes already written to `fs:` or
 * S3 by then are orphans that `storage orphans` lists).
 */
export async function restoreBackup(options: RestoreBackupOptions): Promise<RestoreSummary> {
  const status = await options.store.migrations.status();
  const known = [...status.applied.map((migration) => migration.name), ...status.pending];
  const manifest = await readBackup(options.path, known);
  const target = new RestoreTarget(options.store.db);
  const targetTables = await target.tables();
  const backedUp = Object.keys(manifest.tables);
  const unknown = backedUp.filter((table) => !targetTables.includes(table));
  if (unknown.length > 0)
    throw new BackupRefused('newer', `restore: ${options.path} holds table${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} this store does not have; nothing was restored`);
  if (!options.replace) {
    const filled = await target.filledTables(targetTables);
    if (filled.length > 0) {
      const held = filled
        .slice(0, 3)
        .map((entry) => `${entry.table}: ${entry.rows} rows`)
        .join(', ');
      throw new BackupRefused(
        'not_empty',
        `restore: the store is not empty (${held}${filled.length > 3 ? ', …' : ''}); restore into an empty store, or pass --replace to replace what it holds`,
      );
    }
  }
  const order = [...backedUp.filter((table) => !RESTORED_LAST.includes(table)).sort(), ...RESTORED_LAST.filter((table) => backedUp.includes(table))];
  let rows = 0;
  let contents = 0;
  await target.run(async (writer) => {
    // Tables this store has and the backup does not (an older backup) are emptied too.
    for (const table of targetTables) await writer.clear(table);
    for (const table of order) {
      const entry = manifest.tables[table]!;
      for await (const lines of lineBatches(join(options.path, entry.file), table === 'file_contents' ? CONTENT_BATCH : ROW_BATCH)) {
        const batch = lines.map(decodeRow);
        if (table === 'file_contents') {
          for (const row of batch) contents += (await restoreContent(row, options)) ? 1 : 0;
        }
        await writer.insert(table, batch);
        rows += batch.length;
      }
      await checkCount(writer, table, entry.rows, options.path);
    }
  });
  return { manifest, rows, contents };
}

/**
 * Puts a file's bytes back: into its row when it kept them there (or the store keeps bytes in rows),
 * else into the configured back end. Returns whether the backup held bytes for it; a row whose bytes
 * stayed in a bucket is restored as it was, pointing at them.
 */
async function restoreContent(row: StoreRow, options: RestoreBackupOptions): Promise<boolean> {
  const fileId = String(row.file_id);
  const file = join(options.path, 'contents', objectKey(fileId));
  const held = await stat(file).then(
    () => true,
    () => false,
  );
  row.content = NO_BYTES;
  if (!held) return false;
  if (row.in_database === 1 || options.backend.location.kind === 'database') {
    row.content = await readFile(file);
    row.in_database = 1;
    return true;
  }
  await options.backend.put(fileId, createReadStream(file), { contentType: String(row.content_type), maxBytes: Number.MAX_SAFE_INTEGER });
  row.in_database = 0;
  return true;
}

async function checkCount(writer: RestoreWriter, table: string, expected: number, path: string): Promise<void> {
  const found = await writer.count(table);
  if (found !== expected) {
    throw new BackupRefused('damaged', `restore: backup ${path} is damaged: table ${table} restored ${found} rows, the manifest says ${expected}; nothing was restored`);
  }
}
