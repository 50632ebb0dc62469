import type { Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * File search ranks thousands of candidate files per keystroke (src/store/sql-search.ts): this index
 * holds every column the ranking reads, so each candidate is one index lookup instead of a lookup of the
 * primary key and then of the (wide) row.
 */
export function searchFilesCoverMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // MySQL: nothing (six text columns pass an index's 768 characters); migration 160 drops it on the others.
      if (t.dialect === 'mysql') return;
      await db.schema.createIndex('files_search_cover').on('files').columns(['id', 'status', 'updated_at', 'name', 'name_pinyin', 'name_initials']).execute();
    },
  };
}
