import { auditReader } from '../audit/audit-reader.js';
import { ConsoleSessions } from '../auth/console-sessions.js';
import type { Config } from '../config/config.js';
import { directoryRecords } from '../directory-changes/directory-records.js';
import { eventManagement } from '../events/event-management.js';
import type { ManagementServices } from '../http/app-context.js';
import { channelManagement } from '../notify/channel-management.js';
import { sqlAccessFacts } from '../store/directory-reads/access-facts.js';
import { sqlConsoleSessions } from '../store/console/console-sessions.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { sqlDirectoryBrowse } from '../store/directory-reads/directory-browse.js';
import { sqlSyncRuns } from '../store/sync/sync-runs.js';

/** The services the management API's routes call, over the store: the routes themselves never see `db`. */
export function managementServices(config: Config, store: OpenDatabase): ManagementServices {
  return {
    records: directoryRecords(store),
    events: eventManagement(store.db),
    channels: channelManagement(store.db, config.notify),
    auditLog: auditReader(store.db),
    syncRuns: sqlSyncRuns(store.db),
    directoryBrowse: sqlDirectoryBrowse(store.db),
    accessFacts: sqlAccessFacts(store.db),
  };
}

/** The console's sessions over the store, or undefined when ADMIN_API_KEY is not set (console and /api off). */
export function consoleSessionsFor(config: Config, store: OpenDatabase): ConsoleSessions | undefined {
  if (config.adminApiKey === undefined) return undefined;
  return new ConsoleSessions(config.adminApiKey, sqlConsoleSessions(store.db), {
    ttlSeconds: config.console.sessionTtlSeconds,
    secureCookie: config.publicUrl.startsWith('https://'),
  });
}
