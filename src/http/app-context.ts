import type { AuditReader } from '../audit/audit-reader.js';
import type { AuditTrail } from '../audit/audit-trail.js';
import type { ConsoleSessions } from '../auth/console-sessions.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limit.js';
import type { GuestAccess } from '../auth/guest-access.js';
import type { GuestSessions } from '../auth/guest-sessions.js';
import type { ShareLinkStore } from '../auth/share-links.js';
import type { TokenResolver } from '../auth/token-resolver.js';
import type { Config } from '../config/config.js';
import type { AccessFactsSource } from '../directory/access-explanation.js';
import type { Directory } from '../directory/directory.js';
import type { DirectoryBrowseSource } from '../directory/directory-browse.js';
import type { EventManagement } from '../events/event-management.js';
import type { EventPipeline } from '../events/event-pipeline.js';
import type { PlatformHeaders } from './headers.js';
import type { ChannelManagement } from '../notify/channel-management.js';
import type { PlatformServices } from '../platform/platform-services.js';
import type { AppMetrics } from './metrics.js';
import type { DirectoryChanges } from '../directory-changes/directory-changes.js';
import type { DirectoryRecords } from '../directory-changes/directory-records.js';
import type { FileStorage, StoredContentSource } from '../storage/file-storage.js';
import type { SyncRunStore } from '../store/sync/sync-runs.js';
import type { ScimService } from '../sync/scim/scim-service.js';

/**
 * What every route module is given: built once in `buildApp`, read-only afterwards. It holds services, not
 * the database: a route asks a service (the directory, `management`, `events`, …), never `db`.
 */
export interface AppContext {
  config: Config;
  /** Where directory facts come from: the store's SQL directory, or the host application's own. */
  directory: Directory;
  headers: PlatformHeaders;
  resolveToken: TokenResolver;
  /** The platform API client's flows and seat tasks (src/composition/platform-wiring.ts). */
  platform: PlatformServices;
  /** The app's metrics registry: add collectors with `addMetricsCollector` (src/http/metrics.ts). */
  metrics: AppMetrics;
  /** The one validated path of every directory write (management API, SCIM, …); see src/composition/directory-writes.ts. */
  directoryChanges: DirectoryChanges;
  /** The bytes of third-party files in collab-host's own store (FILE_STORAGE): uploads, removals, links. */
  fileStorage: FileStorage;
  /** Where the file callbacks find stored bytes: `fileStorage`, or a host directory's `getFileContent`. */
  storedContent: StoredContentSource;
  /** Sessions of the operator console; undefined when ADMIN_API_KEY is not set (console and /api off). */
  consoleSessions: ConsoleSessions | undefined;
  /** The event pipeline: intake of POST /events, the processor behind it, re-processing, statistics. */
  events: EventPipeline;
  /** Failed admin-key and console authentications per client (RATE_LIMIT_AUTH_FAILURES), one counter for /api and the console. */
  authFailures: FailedAuthLimiter;
  /** The audit log's buffered writer: access decisions and management writes (src/audit/audit-trail.ts). */
  audit: AuditTrail;
  /** Share links and their guests (docs/sharing.md): the store, the token requests, the guests' check. */
  sharing: { links: ShareLinkStore; sessions: GuestSessions; guests: GuestAccess };
  /** What the management API reads and changes besides the directory (src/composition/management-wiring.ts). */
  management: ManagementServices;
  /** The SCIM service provider's protocol and writes; undefined when SCIM is not configured. */
  scim: ScimService | undefined;
}

/** The services of the management API's routes, each over the store: routes call these, never `db`. */
export interface ManagementServices {
  /** The directory's records one at a time or one page at a time, in the management API's complete form. */
  records: DirectoryRecords;
  /** The event log, the outbox, reminders, presence; re-sending a notification. */
  events: EventManagement;
  /** Notification channels, their deliveries, and people's notification preferences. */
  channels: ChannelManagement;
  /** Pages of the audit log. */
  auditLog: AuditReader;
  /** Pages of the directory sync runs. */
  syncRuns: Pick<SyncRunStore, 'list'>;
  /** The operator console's views of the whole directory. */
  directoryBrowse: DirectoryBrowseSource;
  /** What explains a user's permissions on a file. */
  accessFacts: AccessFactsSource;
}
