import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * What the platform's anonymous viewer may read (`anonymousAllowed` in src/store/sharing/share-links.ts:
 * on every request with the anonymous token, whether any file or share link allows it at all). Without
 * these it read every file (24 ms on the bench company's 200,000 files, where none allows it) and every
 * share link. SQLite and PostgreSQL index only the rows that allow it; MySQL has no partial index: it
 * indexes the column (its first 8 characters, a LONGTEXT there: the value is `view` or null).
 */
export function anonymousAccessIndexesMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (t.dialect === 'mysql') {
        await sql`CREATE INDEX files_anonymous ON files (anonymous_access(8))`.execute(db);
        await sql`CREATE INDEX share_links_anonymous ON share_links (anonymous)`.execute(db);
        return;
      }
      await sql`CREATE INDEX files_anonymous ON files (anonymous_access) WHERE anonymous_access IS NOT NULL`.execute(db);
      await sql`CREATE INDEX share_links_anonymous ON share_links (anonymous) WHERE anonymous = 1`.execute(db);
    },
  };
}
