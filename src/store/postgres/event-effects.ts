import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/** Versions and updatedAt only move forward; rows as one array per column. */
const ADVANCE_FILE_VERSIONS = new Statement(`
  UPDATE files AS f SET
    version = v.version,
    updated_at = CASE WHEN f.updated_at < v.updated_at THEN v.updated_at ELSE f.updated_at END
  FROM unnest($1::text[], $2::integer[], $3::text[]) AS v(id, version, updated_at)
  WHERE f.id = v.id AND f.version < v.version`);

/** PostgreSQL's forms of the event effects written in bulk. */
export const postgresEventEffects = {
  async advanceFileVersions(db: Db, rows: ReadonlyArray<{ fileId: string; version: number; updatedAt: string }>): Promise<void> {
    await ADVANCE_FILE_VERSIONS.run(db, [rows.map((row) => row.fileId), rows.map((row) => row.version), rows.map((row) => row.updatedAt)]);
  },
};
