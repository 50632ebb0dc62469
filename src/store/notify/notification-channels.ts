import { dialectOf } from '../dialect/dialect.js';
import type { Selectable } from 'kysely';
import type { Channel, ChannelKind, Locale } from '../../notify/channel.js';
import { dialectWork } from '../dialect/dialect-work-for.js';
import { storableText } from '../statements/row-insert.js';
import type { Database, Db } from '../schema/schema.js';

type ChannelRow = Selectable<Database['notification_channels']>;

/** What a channel's `settings` column holds. */
interface ChannelSettings {
  from?: string | null;
  ratePerMinute?: number | null;
}

function toChannel(row: ChannelRow): Channel {
  const settings = JSON.parse(row.settings) as ChannelSettings;
  return {
    id: row.id,
    kind: row.kind as ChannelKind,
    name: row.name,
    teamId: row.team_id,
    target: row.target,
    secret: row.secret,
    subscriptions: JSON.parse(row.subscriptions) as string[],
    personal: Number(row.personal) === 1,
    locale: row.locale as Locale,
    from: settings.from ?? null,
    ratePerMinute: settings.ratePerMinute ?? null,
    enabled: Number(row.enabled) === 1,
    source: 'api',
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The channels stored through the management API (docs/notifications.md). */
export const notificationChannels = {
  async list(db: Db): Promise<Channel[]> {
    return (await db.selectFrom('notification_channels').selectAll().orderBy('id').execute()).map(toChannel);
  },

  /** The stored channel; with `lock`, inside a transaction, its row stays locked until the transaction ends. */
  async get(db: Db, id: string, options: { lock?: boolean } = {}): Promise<Channel | undefined> {
    const query = db.selectFrom('notification_channels').selectAll().where('id', '=', storableText(id));
    const row = await (options.lock ? dialectWork(db).forUpdate(query) : query).executeTakeFirst();
    return row && toChannel(row);
  },

  /** Creates or replaces a channel; answers whether it was created. */
  async put(db: Db, channel: Omit<Channel, 'source' | 'createdAt' | 'updatedAt'>, now: string): Promise<'created' | 'replaced'> {
    const values = {
      kind: channel.kind,
      name: channel.name,
      team_id: channel.teamId,
      target: channel.target,
      secret: channel.secret,
      subscriptions: JSON.stringify(channel.subscriptions),
      personal: channel.personal ? 1 : 0,
      locale: channel.locale,
      settings: JSON.stringify({ from: channel.from, ratePerMinute: channel.ratePerMinute } satisfies ChannelSettings),
      enabled: channel.enabled ? 1 : 0,
      updated_at: now,
    };
    // Insert, else replace: safe when two writers put the same id at once (no unique-key failure).
    const inserted = await dialectOf(db)
      .conflicts.insertOrKeep(db.insertInto('notification_channels').values({ id: channel.id, ...values, created_at: now }), ['id'])
      .returning('id')
      .executeTakeFirst();
    if (inserted) return 'created';
    await db.updateTable('notification_channels').set(values).where('id', '=', channel.id).execute();
    return 'replaced';
  },

  async teamExists(db: Db, teamId: string): Promise<boolean> {
    return (await db.selectFrom('teams').select('id').where('id', '=', storableText(teamId)).executeTakeFirst()) !== undefined;
  },

  async userExists(db: Db, userId: string): Promise<boolean> {
    return (await db.selectFrom('users').select('id').where('id', '=', storableText(userId)).executeTakeFirst()) !== undefined;
  },

  async remove(db: Db, id: string): Promise<boolean> {
    const result = await db.deleteFrom('notification_channels').where('id', '=', storableText(id)).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  },
};
