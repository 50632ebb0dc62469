import type { Config } from './config.js';
import type { Directory } from './directory/directory.js';
import { platformClientFor, platformUserFor } from './platform/configured-client.js';
import type { DocumentTaskDeps } from './platform/document-tasks.js';
import type { PlatformServices } from './platform/platform-services.js';
import { SeatTaskWorker, type SeatTaskWorkerOptions } from './platform/seat-task-worker.js';
import type { OpenDatabase } from './store/database.js';
import { sqlDocumentRecords } from './store/document-records.js';
import { sqlPlatformTasks } from './store/platform-tasks.js';
import { sqlSeatTasks } from './store/seat-tasks.js';
import { SqlDirectory } from './store/sql-directory.js';

/**
 * The platform's document flows over the store, the configured platform and collab-host's own user
 * tokens: one composition for the app and the commands (the domain never builds its store).
 */
export function documentTaskDeps(config: Config, store: OpenDatabase, directory: Directory = SqlDirectory.over(store)): DocumentTaskDeps {
  return {
    directory,
    records: sqlDocumentRecords(store.db),
    tasks: sqlPlatformTasks(store.db),
    platform: platformClientFor(config),
    userFor: platformUserFor(config),
    lang: config.platform.lang,
  };
}

/** Everything the management API needs for the platform (AppContext.platform). */
export function platformServices(config: Config, store: OpenDatabase, directory?: Directory): PlatformServices {
  return { documents: documentTaskDeps(config, store, directory), seats: sqlSeatTasks(store.db) };
}

/** The seat worker over the store's queue; undefined when PLATFORM_API_URL is not set. */
export function seatTaskWorker(config: Config, store: OpenDatabase, options: SeatTaskWorkerOptions = {}): SeatTaskWorker | undefined {
  const client = platformClientFor(config);
  return client ? new SeatTaskWorker(sqlSeatTasks(store.db), client, options) : undefined;
}
