import { sql, type Kysely } from 'kysely';
import { ID, type ColumnTypes } from './column-types.js';

/**
 * The message a delivery goes in, fixed when a digest is first claimed (its idempotency key): a re-claim
 * after a crash sends the same members under the same key, and later mentions go in a new message.
 * Null: not yet in a message. Partial index: only deliveries in a message carry a key.
 */
export function deliveryMessageKeyMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('notification_deliveries').addColumn('message_key', t.key(ID)).execute();
      const index = db.schema.createIndex('notification_deliveries_message_key').on('notification_deliveries').column('message_key');
      // MySQL has no partial indexes: there it holds every delivery.
      await (t.dialect === 'mysql' ? index : index.where(sql.ref('message_key'), 'is not', null)).execute();
    },
  };
}
