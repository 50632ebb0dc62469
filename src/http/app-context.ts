import type { AuditTrail } from '../audit/audit-trail.js';
import type { ConsoleSessions } from '../auth/console-sessions.js';
import type { FailedAuthLimiter } from '../auth/failed-auth-limit.js';
import type { GuestAccess } from '../auth/guest-access.js';
import type { GuestSessions } from '../auth/guest-sessions.js';
import type { ShareLinkStore } from '../auth/share-links.js';
import type { TokenResolver } from '../auth/token-resolver.js';
import type { Config } from '../config/config.js';
import type { Directory } from '../directory/directory.js';
import type { EventPipeline } from '../events/event-pipeline.js';
import type { PlatformHeaders } from './headers.js';
import type { PlatformServices } from '../platform/platform-services.js';
import type { AppMetrics } from './metrics.js';
import type { DirectoryChanges } from '../directory-changes/directory-changes.js';
import type { FileStorage, StoredContentSource } from '../storage/file-storage.js';
import type { OpenDatabase } from '../store/connection/database.js';

/** What every route module is given: built once in `buildApp`, read-only afterwards. */
export interface AppContext {
  config: Config;
  /** collab-host's own database: events, reminders, the outbox, replay bookkeeping, management writes. */
  store: OpenDatabase;
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
}
