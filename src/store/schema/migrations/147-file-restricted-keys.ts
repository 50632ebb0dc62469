import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * A file's restrictions may switch any of the kit's nine permission keys off (issue 24, docs/sharing.md
 * "Permission keys"): `files.restrict_keys` holds the JSON array of those keys' names, or null (none: the
 * default, every key derived from the role).
 */
export function fileRestrictedKeysMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('files').addColumn('restrict_keys', t.text).execute();
    },
  };
}
