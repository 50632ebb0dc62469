/**
 * Notification channels (docs/notifications.md): where messages for people and teams go. A channel is
 * one SMTP server or one group bot; it serves one team (or every team), takes the notification types an
 * operator subscribes it to, and, when `personal`, carries the personal notices of the team's people: an
 * e-mail to their directory address, or an @ of their IM identity in the bot's group.
 */

export const CHANNEL_KINDS = ['email', 'wecom', 'dingtalk', 'feishu', 'slack', 'webhook'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];

/** The personal notices a person can mute. */
export const PERSONAL_KINDS = ['mention', 'reply', 'reminder', 'share'] as const;
export type PersonalKind = (typeof PERSONAL_KINDS)[number];

export const LOCALES = ['zh-CN', 'en'] as const;
export type Locale = (typeof LOCALES)[number];

/** The notification types a channel can be subscribed to as a whole. */
export const SUBSCRIBABLE_TYPES = ['mention.created', 'comment.created', 'reminder.due', 'file.updated', 'revision.changed', 'callback.failed', 'file.shared'] as const;

export interface Channel {
  id: string;
  kind: ChannelKind;
  name: string;
  /** The team whose people and files it serves; null: every team. */
  teamId: string | null;
  /** The bot's webhook URL, or the SMTP URL (`smtp://` or `smtps://`) of an e-mail channel. A secret. */
  target: string;
  /** Signing secret (DingTalk, Feishu, webhook); null: unsigned. */
  secret: string | null;
  subscriptions: string[];
  personal: boolean;
  /** The language of its team messages. */
  locale: Locale;
  /** E-mail: the sender (`MAIL_FROM` for the environment's channel). */
  from: string | null;
  /** Messages per minute it may take at most (per person for e-mail); null: the kind's default. */
  ratePerMinute: number | null;
  enabled: boolean;
  /** `env`: from the environment (read-only through the API); `api`: stored. */
  source: 'env' | 'api';
  createdAt: string | null;
  updatedAt: string | null;
}

/** The outbox receiver of a channel's deliveries: personal ones carry their person beside it. */
export function channelReceiver(channelId: string): string {
  return `channel:${channelId}`;
}

/** The channel id of an outbox receiver, or undefined for a plain webhook URL (NOTIFY_WEBHOOK_URLS). */
export function channelIdOf(receiver: string): string | undefined {
  return receiver.startsWith('channel:') ? receiver.slice('channel:'.length) : undefined;
}

/**
 * Messages per minute by kind, after the vendors' documented limits: WeCom and DingTalk group bots take
 * 20 a minute, Feishu 100 a minute (5 a second), Slack about one a second; e-mail is counted per person.
 */
export const DEFAULT_RATE_PER_MINUTE: Record<ChannelKind, number> = { email: 30, wecom: 20, dingtalk: 20, feishu: 100, slack: 60, webhook: 600 };

/** The language a person reads: `en…` is English, anything else the default (zh-CN). */
export function localeOf(...choices: ReadonlyArray<string | null | undefined>): Locale {
  for (const choice of choices) {
    if (!choice) continue;
    const lower = choice.toLowerCase();
    if (lower.startsWith('en')) return 'en';
    if (lower.startsWith('zh')) return 'zh-CN';
  }
  return 'zh-CN';
}
