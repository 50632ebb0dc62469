import type { Db } from '../schema.js';
import { Statement } from '../statement.js';

/**
 * Versions and updatedAt only move forward; rows as one JSON array. MySQL assigns SET columns left to
 * right, each seeing the ones before: updated_at is compared before version moves.
 */
const ADVANCE_FILE_VERSIONS = new Statement(`
  UPDATE files AS f
    JOIN JSON_TABLE($1, '$[*]' COLUMNS (id VARCHAR(255) PATH '$[0]', version INT PATH '$[1]', updated_at VARCHAR(64) PATH '$[2]')) AS v ON f.id = v.id
  SET f.updated_at = CASE WHEN f.updated_at < v.updated_at THEN v.updated_at ELSE f.updated_at END,
      f.version = v.version
  WHERE f.version < v.version`);

/**
 * MySQL's forms of the conflict clauses of the event effects (src/store/event-effects.ts): MySQL has no
 * ON CONFLICT … WHERE, so each column takes its new value only when the condition holds, and the columns
 * the condition reads are assigned last (MySQL assigns left to right, each seeing the ones before).
 */
export const MYSQL_EFFECT_CONFLICTS = {
  /** A row its event wrote before (activity_once_per_event, revisions_once_per_event): left as it is. */
  keepExisting: (column: string) => `ON DUPLICATE KEY UPDATE ${column} = ${column}`,
  /** The platform's timestamp orders enter and leave: an older event arriving late never undoes a newer one. */
  presence: `ON DUPLICATE KEY UPDATE
     since = IF(changed_ms <= VALUES(changed_ms), CASE WHEN present = 1 AND VALUES(present) = 1 THEN since ELSE VALUES(since) END, since),
     present = IF(changed_ms <= VALUES(changed_ms), VALUES(present), present),
     changed_ms = GREATEST(changed_ms, VALUES(changed_ms))`,
  reminders: `ON DUPLICATE KEY UPDATE
     author_id = VALUES(author_id), content = VALUES(content), remind_user_ids = VALUES(remind_user_ids),
     remind_at = VALUES(remind_at), due_at_ms = VALUES(due_at_ms), status = VALUES(status),
     updated_at = VALUES(updated_at), fired_at = VALUES(fired_at), last_event_id = VALUES(last_event_id)`,
};

/** A failing callback counted once per event. */
export const COUNT_CALLBACK_FAILURE = new Statement(
  `INSERT INTO callback_failures (url, status, count, last_seen_at, last_error, last_event_id) VALUES ($1, $2, 1, $3, $4, $5)
   ON DUPLICATE KEY UPDATE
     count = IF(last_event_id < VALUES(last_event_id), count + 1, count),
     last_seen_at = IF(last_event_id < VALUES(last_event_id), VALUES(last_seen_at), last_seen_at),
     last_error = IF(last_event_id < VALUES(last_event_id), VALUES(last_error), last_error),
     last_event_id = GREATEST(last_event_id, VALUES(last_event_id))`,
);

/** MySQL's forms of the event effects written in bulk. */
export const mysqlEventEffects = {
  async advanceFileVersions(db: Db, rows: ReadonlyArray<{ fileId: string; version: number; updatedAt: string }>): Promise<void> {
    await ADVANCE_FILE_VERSIONS.run(db, [JSON.stringify(rows.map((row) => [row.fileId, row.version, row.updatedAt]))]);
  },
};
