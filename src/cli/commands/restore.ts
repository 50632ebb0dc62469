import { resolve } from 'node:path';
import { restoreBackup } from '../../backup/restore-backup.js';
import { loadConfig } from '../../config/config.js';
import { redactDatabaseUrl } from '../../store/connection/availability.js';
import { DatabaseTooNewError } from '../../store/schema/migration-runner.js';
import { withBackupStore } from '../backup-store.js';
import { CliError } from '../cli-error.js';
import { parseCommandArgs } from '../command-args.js';

const USAGE = `usage: collab-host restore DIR [--replace]

Restores the backup DIR (taken by \`collab-host backup\`, from either store) into the store at
DATABASE_URL, applying its migrations first; file bytes go where FILE_STORAGE says. The whole backup is
checked against DIR/manifest.json before anything changes: a damaged backup (a file missing or not
matching its SHA-256) and one taken by a newer collab-host are refused, exit 1. Everything is restored in
one transaction, or nothing. Stop the service on that store first.
  --replace   replace what the store holds (without it a store holding anything is refused)`;

/** `collab-host restore DIR [--replace]`. */
export async function restoreCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({ usage: USAGE, options: { replace: { type: 'boolean' } }, positionals: { min: 1, max: 1 } }, args);
  const path = resolve(positionals[0]!);
  const config = loadConfig();
  try {
    const { manifest, rows, contents } = await withBackupStore(config, { poolSize: 2 }, (store, backend) =>
      restoreBackup({ path, store, backend, replace: values.replace === true }),
    );
    process.stderr.write(
      `restored ${path} (taken ${manifest.startedAt} by collab-host ${manifest.version} on ${manifest.dialect}) into ${redactDatabaseUrl(config.databaseUrl)}: ` +
        `${Object.keys(manifest.tables).length} tables, ${rows} rows, ${contents} file contents\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof DatabaseTooNewError) throw new CliError(`restore: ${error.message}`);
    throw error;
  }
}
