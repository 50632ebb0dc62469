import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * The deliveries a claim holds, found by its token: an outbox worker renews its short lease on them every
 * few seconds while it sends (src/events/outbox-worker.ts). Partial: only claimed rows carry a token.
 */
export function deliveryClaimsMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const index = db.schema.createIndex('notification_deliveries_claim_token').on('notification_deliveries').column('claim_token');
      // MySQL has no partial indexes: there it holds every delivery.
      await (t.dialect === 'mysql' ? index : index.where(sql.ref('claim_token'), 'is not', null)).execute();
    },
  };
}
