import { sql, type Kysely } from 'kysely';

/**
 * The deliveries a claim holds, found by its token: an outbox worker renews its short lease on them every
 * few seconds while it sends (src/events/outbox-worker.ts). Partial: only claimed rows carry a token.
 */
export function deliveryClaimsMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('notification_deliveries_claim_token')
        .on('notification_deliveries')
        .column('claim_token')
        .where(sql.ref('claim_token'), 'is not', null)
        .execute();
    },
  };
}
