import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { objectKey } from '../storage/object-key.js';
import { hashFile, lineBatches } from './hashed-file.js';
import { BACKUP_FORMAT_VERSION, BackupRefused, MANIFEST_FILE, parseManifest, type BackupManifest } from './manifest.js';
import { decodeRow } from './row-codec.js';

/**
 * Reads a backup's manifest and checks the whole backup against it before anything is restored: a
 * backup a newer collab-host took (a newer layout, or migrations this version does not know) and a
 * damaged one (a file missing, or not matching its SHA-256, or file bytes not matching their row's hash)
 * are refused with one line saying which and why.
 */
export async function readBackup(path: string, knownMigrations: readonly string[]): Promise<BackupManifest> {
  const text = await readFile(join(path, MANIFEST_FILE), 'utf8').catch(() => undefined);
  const manifest = text === undefined ? undefined : parseManifest(text);
  if (!manifest) throw new BackupRefused('not_a_backup', `restore: ${path} is not a collab-host backup (no readable ${MANIFEST_FILE}); nothing was restored`);
  const newer = manifest.formatVersion > BACKUP_FORMAT_VERSION ? [] : manifest.migrations.filter((name) => !knownMigrations.includes(name));
  if (manifest.formatVersion > BACKUP_FORMAT_VERSION || newer.length > 0) {
    const what = newer.length > 0 ? `migration${newer.length === 1 ? '' : 's'} ${newer.join(', ')} unknown to this version` : `backup format ${manifest.formatVersion}`;
    throw new BackupRefused(
      'newer',
      `restore: ${path} was taken by a newer collab-host (${manifest.version}): ${what}; restore it with that version or a later one. Nothing was restored`,
    );
  }
  for (const [table, entry] of Object.entries(manifest.tables)) {
    const found = await hashFile(join(path, entry.file));
    if (!found || found.sha256 !== entry.sha256 || found.bytes !== entry.bytes || !entry.file.startsWith('tables/') || entry.file.includes('..')) {
      throw damaged(path, `${entry.file} (table ${table}) ${found ? 'does not match its SHA-256 in the manifest' : 'is missing'}`);
    }
  }
  const contents = manifest.tables.file_contents;
  if (contents) {
    for await (const lines of lineBatches(join(path, contents.file), 100)) {
      for (const row of lines.map(decodeRow)) {
        const file = join(path, 'contents', objectKey(String(row.file_id)));
        const found = await hashFile(file);
        if (found === undefined && row.in_database !== 1) continue; // bytes kept outside the backup (S3)
        if (!found || found.sha256 !== row.sha256) throw damaged(path, `the bytes of file ${String(row.file_id)} ${found ? 'do not match their SHA-256' : 'are missing'}`);
      }
    }
  }
  return manifest;
}

function damaged(path: string, what: string): BackupRefused {
  return new BackupRefused('damaged', `restore: backup ${path} is damaged: ${what}; nothing was restored`);
}
