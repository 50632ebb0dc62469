import type { Selectable } from 'kysely';
import { formatTime } from '../../directory/time.js';
import { dialectWork } from '../dialect/dialect-work-for.js';
import { dialectOf, type FileVersionRow } from '../dialect/dialect.js';
import type { ConflictSyntax } from '../statements/bulk-table.js';
import { insertRows, storableText, type RowTable } from '../statements/row-insert.js';
import type { Database, Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/** One row of the activity the recent lists read. */
export interface ActivityRow {
  userId: string;
  fileId: string | null;
  relatedUserId: string | null;
  /** open | edit | comment | discussion | mention | revision */
  kind: string;
  occurredAt: string;
  /** The event that did it: one row per event and kind (mentions are kept once by their notification). */
  eventId: number | null;
}

export type ReminderChange =
  | { op: 'create'; fileId: string; id: string; authorId: string; content: string; remindUserIds: string[]; remindAtMs: number }
  | { op: 'update'; fileId: string; id: string; authorId: string; content?: string; remindUserIds?: string[]; remindAtMs?: number }
  | { op: 'remove'; fileId: string; id: string };

export interface PresenceChange {
  fileId: string;
  userId: string;
  clientId: string;
  present: boolean;
  atMs: number;
}

export type { FileVersionRow };

export interface RevisionRow {
  fileId: string;
  revisionId: number;
  action: string;
  userId: string;
  title: string | null;
  label: string | null;
  docHistoryId: string | null;
  occurredAt: string;
  eventId: number;
}

export interface CallbackFailure {
  url: string;
  status: number;
  error: string | null;
  at: string;
}

export interface PresenceRow {
  userId: string;
  clientId: string;
  since: string;
}

/**
 * The state that events change, written by the processor inside its transaction. Every write is safe to
 * repeat for the same event (re-processing): rows are keyed by their event, and stateful changes apply
 * only when newer than what they would replace.
 */
export interface EventEffectsStore {
  /**
   * Creates, moves or cancels reminders, each change in turn (in event order), unless a later event
   * already changed its reminder: the rows read and written once for the whole batch.
   */
  applyReminderChanges(db: Db, changes: ReadonlyArray<{ change: ReminderChange; eventId: number }>, nowMs: number): Promise<void>;
  /** Records enters and leaves, in order, each unless a newer one (by the platform's time) is recorded. */
  applyPresence(db: Db, changes: readonly PresenceChange[]): Promise<void>;
  /** Moves files' content versions and updatedAt forward (never back). */
  advanceFileVersions(db: Db, rows: readonly FileVersionRow[]): Promise<void>;
  /** Counts a failing callback per URL and status, once per event. */
  countCallbackFailure(db: Db, failure: CallbackFailure, eventId: number): Promise<void>;
  /** Adds revision log entries, one per event. */
  addRevisions(db: Db, rows: readonly RevisionRow[]): Promise<void>;
  /** Adds activity rows, skipping those the same event added before. */
  addActivity(db: Db, rows: readonly ActivityRow[]): Promise<void>;
  /** Who has the file open now: one row per open client. */
  presence(db: Db, fileId: string): Promise<PresenceRow[]>;
  /** The author of a revision of the file, from the revision log (created before collab-host's event log knew it). */
  revisionAuthor(db: Db, fileId: string, revisionId: number): Promise<string | undefined>;
}

type ActivityInsert = Selectable<Database['activity']>;
const ACTIVITY: RowTable<ActivityInsert> = {
  table: 'activity',
  columns: { user_id: 'text', file_id: 'text', related_user_id: 'text', kind: 'text', occurred_at: 'text', event_id: 'bigint' },
  // A row its event wrote before.
  onConflict: { 'on-conflict': 'ON CONFLICT DO NOTHING', 'on-duplicate-key': 'ON DUPLICATE KEY UPDATE kind = kind' },
};

type RevisionInsert = Omit<Selectable<Database['revisions']>, 'seq'>;
const REVISIONS: RowTable<RevisionInsert> = {
  table: 'revisions',
  columns: {
    file_id: 'text',
    revision_id: 'bigint',
    action: 'text',
    user_id: 'text',
    title: 'text',
    label: 'text',
    doc_history_id: 'text',
    occurred_at: 'text',
    event_id: 'bigint',
  },
  // The entry its event wrote before.
  onConflict: { 'on-conflict': 'ON CONFLICT DO NOTHING', 'on-duplicate-key': 'ON DUPLICATE KEY UPDATE seq = seq' },
};

type PresenceInsert = Selectable<Database['presence']>;
/** The platform's timestamp orders enter and leave: an older event arriving late never undoes a newer one. */
const PRESENCE: RowTable<PresenceInsert> = {
  table: 'presence',
  columns: { file_id: 'text', user_id: 'text', client_id: 'text', present: 'integer', since: 'text', changed_ms: 'bigint' },
  onConflict: {
    'on-conflict': `ON CONFLICT (file_id, user_id, client_id) DO UPDATE SET
     present = excluded.present,
     since = CASE WHEN presence.present = 1 AND excluded.present = 1 THEN presence.since ELSE excluded.since END,
     changed_ms = excluded.changed_ms
   WHERE presence.changed_ms <= excluded.changed_ms`,
    // No WHERE: each column moves only when the condition holds; MySQL assigns left to right, each
    // assignment seeing the ones before, so the columns the condition reads come last.
    'on-duplicate-key': `ON DUPLICATE KEY UPDATE
     since = IF(changed_ms <= VALUES(changed_ms), CASE WHEN present = 1 AND VALUES(present) = 1 THEN since ELSE VALUES(since) END, since),
     present = IF(changed_ms <= VALUES(changed_ms), VALUES(present), present),
     changed_ms = GREATEST(changed_ms, VALUES(changed_ms))`,
  },
};

type ReminderRow = Omit<Selectable<Database['reminders']>, 'seq'>;
/** Written whole: new reminders inserted, known ones (read under a row lock) replaced. */
const REMINDERS: RowTable<ReminderRow> = {
  table: 'reminders',
  columns: {
    file_id: 'text',
    id: 'text',
    author_id: 'text',
    content: 'text',
    remind_user_ids: 'text',
    remind_at: 'text',
    due_at_ms: 'bigint',
    status: 'text',
    created_at: 'text',
    updated_at: 'text',
    fired_at: 'text',
    last_event_id: 'bigint',
  },
  onConflict: {
    'on-conflict': `ON CONFLICT (file_id, id) DO UPDATE SET
     author_id = excluded.author_id, content = excluded.content, remind_user_ids = excluded.remind_user_ids,
     remind_at = excluded.remind_at, due_at_ms = excluded.due_at_ms, status = excluded.status,
     updated_at = excluded.updated_at, fired_at = excluded.fired_at, last_event_id = excluded.last_event_id`,
    'on-duplicate-key': `ON DUPLICATE KEY UPDATE
     author_id = VALUES(author_id), content = VALUES(content), remind_user_ids = VALUES(remind_user_ids),
     remind_at = VALUES(remind_at), due_at_ms = VALUES(due_at_ms), status = VALUES(status),
     updated_at = VALUES(updated_at), fired_at = VALUES(fired_at), last_event_id = VALUES(last_event_id)`,
  },
};

/** Reminder ids per read. */
const REMINDER_CHUNK = 500;

/** One change applied to the reminder as it stands (undefined: none yet); the reminder after it, or undefined when nothing changes. */
function changedReminder(existing: ReminderRow | undefined, change: ReminderChange, eventId: number, now: string): ReminderRow | undefined {
  if (existing && Number(existing.last_event_id) >= eventId) return undefined;
  if (change.op === 'remove') return existing && { ...existing, status: 'cancelled', updated_at: now, last_event_id: eventId };
  if (!existing) {
    // An update for a reminder never seen (its create was lost before collab-host ran) still schedules it.
    if (change.remindAtMs === undefined) return undefined;
    return {
      file_id: storableText(change.fileId),
      id: storableText(change.id),
      author_id: storableText(change.authorId),
      content: storableText(change.content ?? ''),
      remind_user_ids: JSON.stringify(change.remindUserIds ?? [change.authorId]),
      remind_at: formatTime(change.remindAtMs),
      due_at_ms: change.remindAtMs,
      status: 'scheduled',
      created_at: now,
      updated_at: now,
      fired_at: null,
      last_event_id: eventId,
    };
  }
  const moved = change.remindAtMs !== undefined && change.remindAtMs !== Number(existing.due_at_ms);
  // A moved reminder fires again at its new time; a cancelled one stays cancelled. The author stays.
  const status = existing.status === 'cancelled' ? 'cancelled' : moved ? 'scheduled' : existing.status;
  return {
    ...existing,
    ...(change.content === undefined ? {} : { content: storableText(change.content) }),
    ...(change.remindUserIds === undefined ? {} : { remind_user_ids: JSON.stringify(change.remindUserIds) }),
    ...(change.remindAtMs === undefined ? {} : { remind_at: formatTime(change.remindAtMs), due_at_ms: change.remindAtMs }),
    status,
    ...(moved && status === 'scheduled' ? { fired_at: null } : {}),
    updated_at: now,
    last_event_id: eventId,
  };
}

const COUNT_CALLBACK_FAILURE: Readonly<Record<ConflictSyntax, Statement>> = {
  'on-conflict': new Statement(
    `INSERT INTO callback_failures (url, status, count, last_seen_at, last_error, last_event_id) VALUES ($1, $2, 1, $3, $4, $5)
   ON CONFLICT (url, status) DO UPDATE SET
     count = callback_failures.count + 1, last_seen_at = excluded.last_seen_at, last_error = excluded.last_error, last_event_id = excluded.last_event_id
   WHERE callback_failures.last_event_id < excluded.last_event_id`,
  ),
  // As PRESENCE's: each column guarded by the condition, last_event_id (which it reads) assigned last.
  'on-duplicate-key': new Statement(
    `INSERT INTO callback_failures (url, status, count, last_seen_at, last_error, last_event_id) VALUES ($1, $2, 1, $3, $4, $5)
   ON DUPLICATE KEY UPDATE
     count = IF(last_event_id < VALUES(last_event_id), count + 1, count),
     last_seen_at = IF(last_event_id < VALUES(last_event_id), VALUES(last_seen_at), last_seen_at),
     last_error = IF(last_event_id < VALUES(last_event_id), VALUES(last_error), last_error),
     last_event_id = GREATEST(last_event_id, VALUES(last_event_id))`,
  ),
};

export const eventEffects: EventEffectsStore = {
  async applyReminderChanges(db, changes, nowMs) {
    if (changes.length === 0) return;
    const now = formatTime(nowMs);
    const key = (fileId: string, id: string) => `${fileId}\u0000${id}`;
    // The rows as they stand, locked (PostgreSQL) so that the scheduler firing one waits for this step.
    const current = new Map<string, ReminderRow>();
    const ids = [...new Set(changes.map(({ change }) => storableText(change.id)))];
    for (let start = 0; start < ids.length; start += REMINDER_CHUNK) {
      const query = db
        .selectFrom('reminders')
        .select(Object.keys(REMINDERS.columns) as Array<keyof ReminderRow>)
        .where('id', 'in', ids.slice(start, start + REMINDER_CHUNK));
      for (const row of await dialectWork(db).forUpdate(query).execute()) current.set(key(row.file_id, row.id), row);
    }
    const changed = new Map<string, ReminderRow>();
    for (const { change, eventId } of changes) {
      const at = key(storableText(change.fileId), storableText(change.id));
      const after = changedReminder(current.get(at), change, eventId, now);
      if (!after) continue;
      current.set(at, after);
      changed.set(at, after);
    }
    await insertRows(db, REMINDERS, [...changed.values()]);
  },

  async applyPresence(db, changes) {
    // A statement may meet a key once (PostgreSQL): a key that comes again waits for the next round.
    let rest = changes;
    while (rest.length > 0) {
      const seen = new Set<string>();
      const round: PresenceChange[] = [];
      const later: PresenceChange[] = [];
      for (const change of rest) {
        const key = JSON.stringify([change.fileId, change.userId, change.clientId]);
        (seen.has(key) ? later : round).push(change);
        seen.add(key);
      }
      await insertRows<PresenceInsert>(
        db,
        PRESENCE,
        round.map((change) => ({
          file_id: storableText(change.fileId),
          user_id: storableText(change.userId),
          client_id: storableText(change.clientId),
          present: change.present ? 1 : 0,
          since: formatTime(change.atMs),
          changed_ms: change.atMs,
        })),
      );
      rest = later;
    }
  },

  async advanceFileVersions(db, rows) {
    if (rows.length === 0) return;
    // One row per file (an UPDATE … FROM takes one): the highest version, as applying them in turn would.
    const newest = new Map<string, FileVersionRow>();
    for (const row of rows) {
      const fileId = storableText(row.fileId);
      const seen = newest.get(fileId);
      if (!seen || row.version > seen.version) newest.set(fileId, { ...row, fileId });
    }
    await dialectOf(db).advanceFileVersions(db, [...newest.values()]);
  },

  async countCallbackFailure(db, failure, eventId) {
    await COUNT_CALLBACK_FAILURE[dialectOf(db).conflictSyntax].run(db, [storableText(failure.url), failure.status, failure.at, storableText(failure.error), eventId]);
  },

  async addRevisions(db, rows) {
    await insertRows<RevisionInsert>(
      db,
      REVISIONS,
      rows.map((row) => ({
        file_id: storableText(row.fileId),
        revision_id: row.revisionId,
        action: row.action,
        user_id: storableText(row.userId),
        title: storableText(row.title),
        label: storableText(row.label),
        doc_history_id: storableText(row.docHistoryId),
        occurred_at: row.occurredAt,
        event_id: row.eventId,
      })),
    );
  },

  async addActivity(db, rows) {
    await insertRows<ActivityInsert>(
      db,
      ACTIVITY,
      rows.map((row) => ({
        user_id: storableText(row.userId),
        file_id: storableText(row.fileId),
        related_user_id: storableText(row.relatedUserId),
        kind: row.kind,
        occurred_at: row.occurredAt,
        event_id: row.eventId,
      })),
    );
  },

  async presence(db, fileId) {
    const rows = await db
      .selectFrom('presence')
      .select(['user_id', 'client_id', 'since'])
      .where('file_id', '=', storableText(fileId))
      .where('present', '=', 1)
      .orderBy('user_id')
      .orderBy('client_id')
      .execute();
    return rows.map((row) => ({ userId: row.user_id, clientId: row.client_id, since: row.since }));
  },

  async revisionAuthor(db, fileId, revisionId) {
    const row = await db
      .selectFrom('revisions')
      .select('user_id')
      .where('file_id', '=', storableText(fileId))
      .where('revision_id', '=', revisionId)
      .where('action', '=', 'create')
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    return row?.user_id;
  },
};
