import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { dialects } from '../helpers/stores.js';
import { freshStore } from './fresh-store.js';

for (const dialect of dialects) {
  it(`upgrades a database migrated before 061 and 062 though it has 070 and later [${dialect}]`, { timeout: 60_000 }, async () => {
    const fresh = await freshStore(dialect);
    try {
      // A database of the version before: every migration but the retention indexes and the audit log.
      const before = await fresh.open();
      await sql`DROP TABLE audit_log`.execute(before.db);
      const retentionIndexes = { notifications_by_created: 'notifications', activity_by_time: 'activity', presence_by_changed: 'presence' };
      for (const [index, table] of Object.entries(retentionIndexes)) {
        // MySQL names an index within its table.
        await (dialect === 'mysql' ? sql`DROP INDEX ${sql.id(index)} ON ${sql.id(table)}` : sql`DROP INDEX ${sql.id(index)}`).execute(before.db);
      }
      await sql`DELETE FROM kysely_migration WHERE name IN ('061-retention-indexes', '062-audit-log')`.execute(before.db);
      expect((await before.migrations.status()).applied.map((m) => m.name)).toContain('080-console-sessions');
      await before.close();

      const upgraded = await fresh.open();
      try {
        expect((await upgraded.migrations.status()).pending).toEqual([]);
        await upgraded.db
          .insertInto('audit_log')
          .values({ at: '2026-01-01T00:00:00Z', kind: 'management', actor_id: null, credential: 'admin_key', file_id: null, action: 'x', permissions: null, details: null })
          .execute();
      } finally {
        await upgraded.close();
      }
    } finally {
      await fresh.drop();
    }
  });
}
