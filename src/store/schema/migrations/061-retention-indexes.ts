import type { Kysely } from 'kysely';

/**
 * Retention (docs/operations.md, "Retention"): pruning finds the oldest rows of each table by time. The
 * event log has its index on received_at (004); notifications, activity and presence get theirs here, so
 * a pruning pass that finds nothing to remove reads an index edge instead of the whole table.
 */
export function retentionIndexesMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('notifications_by_created').on('notifications').columns(['created_at', 'seq']).execute();
      await db.schema.createIndex('activity_by_time').on('activity').columns(['occurred_at']).execute();
      await db.schema.createIndex('presence_by_changed').on('presence').columns(['changed_ms']).execute();
    },
  };
}
