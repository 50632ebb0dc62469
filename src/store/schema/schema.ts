import type { Generated, Kysely, Transaction } from 'kysely';
import type { PlatformTables } from './tables/platform.js';
import type { SyncTables } from './tables/sync.js';
import type { StorageTables } from './tables/storage.js';
import type { ConsoleTables } from './tables/console.js';
import type { EventTables } from './tables/events.js';
import type { DirectoryVersionTables } from './tables/directory-versions.js';
import type { DirectoryChangeTables } from './tables/directory-changes.js';
import type { AuditTables } from './tables/audit.js';
import type { NotifyTables } from './tables/notify.js';
import type { SharingTables } from './tables/sharing.js';

/**
 * The tables of the store, shared by SQLite and PostgreSQL. Times of the directory are text in the
 * interface's format (`YYYY-MM-DDThh:mm:ssZ`, which sorts as time); booleans are 0/1 integers so both
 * dialects read the same values. Other features add their tables to this interface in their own files.
 */
export interface DirectoryTables {
  teams: { id: string; name: string };
  departments: {
    id: string;
    team_id: string;
    parent_id: string | null;
    name: string;
    /** Lower-case full pinyin of the name, no separators (search). */
    name_pinyin: string;
    /** Lower-case pinyin initials of the name (search). */
    name_initials: string;
  };
  /** Closure of the department tree: one row per (department, ancestor-or-self), depth 0 for itself. */
  department_ancestors: { department_id: string; ancestor_id: string; depth: number };
  users: {
    id: string;
    name: string;
    email: string | null;
    avatar: string | null;
    team_id: string | null;
    /** JSON array of lines, or null for the configured template. */
    watermark: string | null;
    name_pinyin: string;
    name_initials: string;
    /** 1 active, 0 deactivated (kept with their files and history, left out of every list of people). */
    active: Generated<number>;
    /** The person's language (zh-CN, en), from SCIM, LDAP or the snapshot; null: not known. */
    locale: string | null;
    /** JSON object of IM identities (wecom, dingtalk, feishu, slack user ids), or null. */
    im: string | null;
  };
  user_departments: { user_id: string; department_id: string };
  files: {
    id: string;
    name: string;
    type: string;
    creator_id: string;
    team_id: string | null;
    created_at: string;
    updated_at: string;
    views: number | null;
    ext: string | null;
    download_url: string | null;
    full_url: string | null;
    restrict_copy: number;
    restrict_export: number;
    /** active | pending | failed (documents whose platform creation has not succeeded) */
    status: string;
    /** Last content version reported by the platform (FileContent events); 0 when none. */
    version: Generated<number>;
    name_pinyin: string;
    name_initials: string;
    /** `view`: the platform's anonymous viewer may read the file (migration 145); null: not. */
    anonymous_access: string | null;
    /** JSON array of the kit's permission keys the restrictions switch off (migration 147); null: none. */
    restrict_keys: string | null;
  };
  /** role_rank: 1 viewer, 2 commenter, 3 editor, 4 manager. */
  file_grants: { file_id: string; principal_kind: string; principal_id: string; role_rank: number };
  /** Bytes of third-party files that collab-host serves itself. */
  file_contents: { file_id: string; content_type: string; content: Buffer; size: number };
}

/** Activity of users on files (events write it, the recent lists of search read it). */
export interface ActivityTables {
  activity: {
    user_id: string;
    file_id: string | null;
    related_user_id: string | null;
    /** open | edit | comment | discussion | mention | revision */
    kind: string;
    occurred_at: string;
    /** The event that wrote the row (020): re-processing an event adds no second row. */
    event_id: Generated<number | null>;
  };
}

export type Database = DirectoryTables &
  ActivityTables &
  EventTables &
  StorageTables &
  PlatformTables &
  SyncTables &
  ConsoleTables &
  DirectoryVersionTables &
  DirectoryChangeTables &
  AuditTables &
  NotifyTables &
  SharingTables;

/** The store, or a transaction of it: what every repository function takes. */
export type Db = Kysely<Database> | Transaction<Database>;
