import type { Config } from '../config/config.js';
import type { StoreDirectory } from '../directory/directory.js';
import { platformClientFor, platformUserFor } from '../platform/configured-client.js';
import type { DocumentDeps } from '../platform/create-document.js';
import type { DocumentTaskDeps, ExportContents } from '../platform/document-tasks.js';
import type { PlatformServices } from '../platform/platform-services.js';
import { SeatTaskWorker, type SeatTaskWorkerOptions } from '../platform/seat-task-worker.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { sqlDocumentRecords } from '../store/platform/document-records.js';
import { sqlPlatformTasks } from '../store/platform/platform-tasks.js';
import { sqlSeatTasks } from '../store/platform/seat-tasks.js';
import { SqlDirectory } from '../store/directory-reads/sql-directory.js';

/**
 * The platform's document flows over the store, the configured platform and collab-host's own user
 * tokens: one composition for the app and the commands (the domain never builds its store).
 */
export function documentDeps(config: Config, store: OpenDatabase, directory: StoreDirectory = SqlDirectory.over(store)): DocumentDeps {
  return {
    directory,
    records: sqlDocumentRecords(store.db),
    platform: platformClientFor(config),
    userFor: platformUserFor(config),
    lang: config.platform.lang,
  };
}

/** The document flows with their tasks (imports, exports); an export's bytes go to `contents` (the file storage). */
export function documentTaskDeps(config: Config, store: OpenDatabase, contents: ExportContents, directory?: StoreDirectory): DocumentTaskDeps {
  return { ...documentDeps(config, store, directory), tasks: sqlPlatformTasks(store.db), contents };
}

/** Everything the management API needs for the platform (AppContext.platform). */
export function platformServices(config: Config, store: OpenDatabase, contents: ExportContents, directory?: StoreDirectory): PlatformServices {
  return { documents: documentTaskDeps(config, store, contents, directory), seats: sqlSeatTasks(store.db) };
}

/** The seat worker over the store's queue; undefined when PLATFORM_API_URL is not set. */
export function seatTaskWorker(config: Config, store: OpenDatabase, options: SeatTaskWorkerOptions = {}): SeatTaskWorker | undefined {
  const client = platformClientFor(config);
  return client ? new SeatTaskWorker(sqlSeatTasks(store.db), client, options) : undefined;
}
