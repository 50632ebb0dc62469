import type { NotifyConfig } from '../config/notify.js';
import type { Db } from '../store/schema/schema.js';
import { notificationChannels } from '../store/notify/notification-channels.js';
import { localeOf, type Channel } from './channel.js';

/**
 * The channels the environment describes (SMTP_URL, NOTIFY_<BOT>_WEBHOOK): ids `env-<kind>`, every
 * team, personal, subscribed to NOTIFY_BOT_SUBSCRIPTIONS (bots only). Read-only through the API.
 */
export function environmentChannels(config: NotifyConfig): Channel[] {
  return config.envChannels.map((channel) => ({
    id: `env-${channel.kind}`,
    kind: channel.kind,
    name: channel.kind === 'email' ? 'E-mail (SMTP_URL)' : `${channel.kind} (environment)`,
    teamId: null,
    target: channel.target,
    secret: channel.secret,
    subscriptions: channel.kind === 'email' ? [] : [...config.envBotSubscriptions],
    personal: true,
    locale: localeOf(config.defaultLocale),
    from: channel.from,
    ratePerMinute: null,
    enabled: true,
    source: 'env',
    createdAt: null,
    updatedAt: null,
  }));
}

/** Every channel: the environment's, then the stored ones (an id of the environment's wins). */
export async function allChannels(db: Db, config: NotifyConfig): Promise<Channel[]> {
  const fromEnvironment = environmentChannels(config);
  const taken = new Set(fromEnvironment.map((channel) => channel.id));
  return [...fromEnvironment, ...(await notificationChannels.list(db)).filter((channel) => !taken.has(channel.id))];
}
