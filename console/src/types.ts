/**
 * The shapes the management API answers. The console's own routes share their types with the server
 * (type-only imports, erased from the bundle); the event listings mirror contracts.md.
 */

export type { AccessExplanation, GrantPath, PermissionName } from '../../src/directory/access-explanation.js';
export type { DepartmentItem, DirectorySummary, FileItem, TeamItem, UserItem } from '../../src/directory/directory-browse.js';
export type { Role } from '../../src/directory/types.js';
/** `GET /api/platform/app`: the platform's view of this application (its licence). */
export type { AppDetails } from '../../src/platform/platform-shapes.js';

export interface NamedNode {
  id: string;
  name: string;
}

export interface SearchResult<T> {
  count: number;
  truncated: boolean;
  items: T[];
}

export interface EventItem {
  id: number;
  kind: string;
  action: string | null;
  fileId: string | null;
  userId: string | null;
  receivedAt: string;
  body: unknown;
  outcome: 'pending' | 'processed' | 'unprocessed' | 'refused';
  problem: string | null;
}

export type NotificationStatus = 'pending' | 'delivered' | 'failed';

export interface NotificationItem {
  id: string;
  type: string;
  status: NotificationStatus;
  attempts: number;
  occurredAt: string;
  data: unknown;
  deliveries: Array<{ receiver: string; status: NotificationStatus; attempts: number; lastError: string | null; deliveredAt: string | null }>;
}

export interface ReminderItem {
  id: string;
  fileId: string;
  authorId: string;
  content: string;
  remindUserIds: string[];
  remindAt: string;
  status: 'scheduled' | 'fired' | 'cancelled';
}

export interface Presence {
  fileId: string;
  users: Array<{ userId: string; clients: string[]; since: string }>;
}

/** `GET /api/events/stats` (the server's EventStats: its module reads the store, so the shape is mirrored here). */
export interface EventStats {
  log: { pending: number; unprocessed: number; refused: number };
  waiting: { count: number; oldestAgeMs: number };
  lag: { p50Ms: number | null; p99Ms: number | null; sample: number };
  outbox: { pending: number; oldestPendingAgeMs: number; failedByReceiver: Record<string, number> };
  reminders: { due: number; late: number };
}

export type SeatTaskStatus = 'pending' | 'done' | 'superseded';

/** `GET /api/platform/seat-tasks` items (src/manage/platform-license-routes.ts). */
export interface SeatTask {
  id: number;
  userId: string;
  /** activate or deactivate */
  action: string;
  status: SeatTaskStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  source: string;
  createdAt: string;
  doneAt: string | null;
}

/** `GET /api/sync/runs` items (mirrored: the server's SyncRunRow lives in the store, which needs Node's types). */
export interface SyncRun {
  id: number;
  source: string;
  /** full or incremental (LDAP), request (one SCIM write) */
  mode: string;
  dryRun: boolean;
  /** running, ok, unchanged or failed */
  status: string;
  detail: string | null;
  startedAt: string;
  durationMs: number | null;
  counts: Record<'created' | 'updated' | 'removed' | 'deactivated' | 'reactivated', number>;
  changes: Record<string, Record<string, string[]>>;
  errors: string[];
}
