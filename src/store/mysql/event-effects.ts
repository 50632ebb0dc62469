import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

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

/** MySQL's forms of the event effects written in bulk. */
export const mysqlEventEffects = {
  async advanceFileVersions(db: Db, rows: ReadonlyArray<{ fileId: string; version: number; updatedAt: string }>): Promise<void> {
    await ADVANCE_FILE_VERSIONS.run(db, [JSON.stringify(rows.map((row) => [row.fileId, row.version, row.updatedAt]))]);
  },
};
