import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/** Versions and updatedAt only move forward; rows as one JSON array of [id, version, updatedAt]. */
const ADVANCE_FILE_VERSIONS = new Statement(`
  UPDATE files SET
    version = v.value->>1,
    updated_at = CASE WHEN files.updated_at < v.value->>2 THEN v.value->>2 ELSE files.updated_at END
  FROM json_each($1) AS v
  WHERE files.id = v.value->>0 AND files.version < v.value->>1`);

/** SQLite's forms of the event effects written in bulk. */
export const sqliteEventEffects = {
  async advanceFileVersions(db: Db, rows: ReadonlyArray<{ fileId: string; version: number; updatedAt: string }>): Promise<void> {
    await ADVANCE_FILE_VERSIONS.run(db, [JSON.stringify(rows.map((row) => [row.fileId, row.version, row.updatedAt]))]);
  },
};
