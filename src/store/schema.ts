import type { Generated } from 'kysely';

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
  };
}

/** Events (issue 5): the log, the outbox, reminders, presence, revisions, callback failures. */
export interface EventTables {
  events: {
    id: Generated<number>;
    delivery_key: string;
    /** The header's kind: Comment, FileContent, … (or whatever unknown kind was pushed). */
    kind: string;
    action: string | null;
    file_id: string | null;
    user_id: string | null;
    /** token | token-expired | signature | unsigned */
    credential: string;
    /** processed | stored (an unknown kind or action, kept but not acted on) */
    status: string;
    received_at: string;
    /** The body exactly as received. */
    body: string;
  };
  notifications: {
    seq: Generated<number>;
    id: string;
    type: string;
    occurred_at: string;
    /** JSON */
    data: string;
    /** pending | delivered | failed, summarising the deliveries */
    status: string;
    attempts: Generated<number>;
    dedupe_key: string | null;
    event_id: number | null;
    created_at: string;
  };
  notification_deliveries: {
    id: Generated<number>;
    notification_id: string;
    receiver: string;
    /** pending | delivered | failed */
    status: string;
    attempts: Generated<number>;
    next_attempt_ms: number;
    claim_token: string | null;
    last_error: string | null;
    delivered_at: string | null;
  };
  reminders: {
    seq: Generated<number>;
    file_id: string;
    id: string;
    author_id: string;
    content: string;
    /** JSON array of user ids */
    remind_user_ids: string;
    remind_at: string;
    due_at_ms: number;
    /** scheduled | fired | cancelled */
    status: string;
    created_at: string;
    updated_at: string;
    fired_at: string | null;
  };
  presence: { file_id: string; user_id: string; client_id: string; present: number; since: string; changed_ms: number };
  revisions: {
    seq: Generated<number>;
    file_id: string;
    revision_id: number;
    action: string;
    user_id: string;
    title: string | null;
    label: string | null;
    doc_history_id: string | null;
    occurred_at: string;
    event_id: number;
  };
  callback_failures: { url: string; status: number; count: number; last_seen_at: string; last_error: string | null };
}

export type Database = DirectoryTables & ActivityTables & EventTables;
