import { BackupRefused } from '../backup/manifest.js';
import type { Config } from '../config/config.js';
import type { ObjectBackend } from '../storage/object-backend.js';
import { openBackend } from '../storage/open-backend.js';
import { openDatabase, type OpenDatabase, type OpenDatabaseOptions } from '../store/connection/database.js';
import { SqlFileObjects } from '../store/files/file-objects.js';
import { CliError } from './cli-error.js';

/**
 * Runs `backup` or `restore` over the configured store and file storage back end, closing both after;
 * a refusal (BackupRefused) becomes the command's one-line message, exit 1.
 */
export async function withBackupStore<T>(config: Config, options: OpenDatabaseOptions, work: (store: OpenDatabase, backend: ObjectBackend) => Promise<T>): Promise<T> {
  const store = await openDatabase(config.databaseUrl, options);
  const backend = openBackend(config.storage.location, config.storage.s3, new SqlFileObjects(store.db));
  try {
    return await work(store, backend);
  } catch (error) {
    if (error instanceof BackupRefused) throw new CliError(error.message);
    throw error;
  } finally {
    await backend.close();
    await store.close();
  }
}
