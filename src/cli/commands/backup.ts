import { resolve } from 'node:path';
import { takeBackup } from '../../backup/take-backup.js';
import { loadConfig } from '../../config/config.js';
import { withBackupStore } from '../backup-store.js';
import { parseCommandArgs, usageError } from '../command-args.js';
import { packageVersion } from '../package-version.js';

const USAGE = `usage: collab-host backup --out DIR

Backs up the whole store at DATABASE_URL while the service keeps running: every table as of one
consistent moment (events, reminders, notifications, sync runs, share links, audit log, the directory, …),
the bytes of stored files kept in the database or under FILE_STORAGE=fs:DIR, and DIR/manifest.json
(version, migrations, row counts, SHA-256 of every file). Bytes in an S3 bucket are not copied: the
bucket's own versioning keeps them. DIR must not exist. Restore with \`collab-host restore DIR\`.
  --out DIR   the backup directory to create`;

/** `collab-host backup --out DIR`. */
export async function backupCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({ usage: USAGE, options: { out: { type: 'string' } } }, args);
  if (values.out === undefined) throw usageError('--out DIR is required', USAGE);
  const out = resolve(values.out);
  const config = loadConfig();
  const manifest = await withBackupStore(config, { migrate: false, poolSize: 2 }, (store, backend) =>
    takeBackup({ store, url: config.databaseUrl, backend, out, version: packageVersion() }),
  );
  const rows = Object.values(manifest.tables).reduce((sum, table) => sum + table.rows, 0);
  const { contents } = manifest;
  const notes = [
    contents.notIncluded > 0 ? `; ${contents.notIncluded} file(s) whose bytes are in ${contents.location} not copied (the bucket's versioning keeps them)` : '',
    contents.changedDuringBackup > 0 ? `; ${contents.changedDuringBackup} file(s) changed while it ran, taken as they are now` : '',
  ].join('');
  process.stderr.write(
    `wrote ${out}: ${Object.keys(manifest.tables).length} tables, ${rows} rows, ${contents.included} file contents (${contents.bytes} bytes) as of ${manifest.startedAt}${notes}\n`,
  );
  return 0;
}
