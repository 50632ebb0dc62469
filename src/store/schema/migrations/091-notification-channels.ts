import type { Kysely } from 'kysely';
import { ID, type ColumnTypes } from './column-types.js';

/**
 * Notification channels (e-mail, WeCom, DingTalk, Feishu, Slack, webhooks) per team, each person's
 * preferences, the person a delivery is for (null: the channel as a whole), and the directory attributes
 * that reach a person: their language and their IM identities (JSON: wecom, dingtalk, feishu, slack).
 */
export function notificationChannelsMigration(t: ColumnTypes) {
  const { text } = t;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await t
        .table(db.schema.createTable('notification_channels'))
        .addColumn('id', t.key(ID), (c) => c.primaryKey())
        .addColumn('kind', text, (c) => c.notNull())
        .addColumn('name', text, (c) => c.notNull())
        .addColumn('team_id', text)
        .addColumn('target', text, (c) => c.notNull())
        .addColumn('secret', text)
        .addColumn('subscriptions', text, (c) => c.notNull())
        .addColumn('personal', 'integer', (c) => c.notNull())
        .addColumn('locale', text, (c) => c.notNull())
        .addColumn('settings', text, (c) => c.notNull())
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('created_at', text, (c) => c.notNull())
        .addColumn('updated_at', text, (c) => c.notNull())
        .execute();
      await t
        .table(db.schema.createTable('notification_preferences'))
        .addColumn('user_id', t.key(ID), (c) => c.primaryKey())
        .addColumn('muted', text, (c) => c.notNull())
        .addColumn('locale', text)
        .addColumn('updated_at', text, (c) => c.notNull())
        .execute();
      await db.schema.alterTable('notification_deliveries').addColumn('recipient', text).execute();
      // The console's deliveries per channel.
      await db.schema.createIndex('deliveries_by_receiver').on('notification_deliveries').columns(['receiver', 'id']).execute();
      await db.schema.alterTable('users').addColumn('locale', text).execute();
      await db.schema.alterTable('users').addColumn('im', text).execute();
    },
  };
}
