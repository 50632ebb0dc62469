import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * A file may let the platform's anonymous viewer read it (`"anonymous": "view"` on its record, issue 24,
 * docs/sharing.md): `files.anonymous_access` holds `view`, or null (the default: no anonymous reading).
 */
export function fileAnonymousMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('files').addColumn('anonymous_access', t.text).execute();
    },
  };
}
