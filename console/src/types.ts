/**
 * The shapes the management API answers, shared with the server by type-only imports (erased from the
 * bundle) of modules that import nothing of Node.
 */

export type { AccessExplanation, GrantPath, PermissionName } from '../../src/directory/access-explanation.js';
export type { DepartmentItem, DirectorySummary, FileItem, TeamItem, UserItem } from '../../src/directory/directory-browse.js';
export type { Role } from '../../src/directory/types.js';
export type { EventItem, EventStats, NotificationItem, NotificationStatus, Presence, ReminderItem } from '../../src/events/listing-shapes.js';
export type { ChannelDelivery, ChannelView } from '../../src/notify/channel-shapes.js';
export type { SyncRunRow as SyncRun } from '../../src/sync/sync-run-shape.js';

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

/** `GET /api/files/{fileId}/share-links` items (src/manage/share-link-routes.ts). */
export interface ShareLinkItem {
  id: string;
  fileId: string;
  role: 'view' | 'comment' | 'edit' | 'form_fill';
  ownerId: string;
  anonymous: boolean;
  hasPassword: boolean;
  maxUses: number | null;
  uses: number;
  state: 'active' | 'revoked' | 'expired' | 'used_up';
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  guests: Array<{ id: string; name: string; createdAt: string; lastUsedAt: string }>;
}
