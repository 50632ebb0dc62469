/**
 * The notification channels' tables (docs/notifications.md): channels configured through the management
 * API (several per team; secrets stored, never listed back) and each person's notification preferences.
 */
export interface NotifyTables {
  notification_channels: {
    id: string;
    /** email | wecom | dingtalk | feishu | slack | webhook */
    kind: string;
    name: string;
    /** The team whose people and files it serves; null: every team. */
    team_id: string | null;
    /** The bot's webhook URL, or the SMTP URL of an e-mail channel (may hold credentials: never listed). */
    target: string;
    /** The bot's signing secret (DingTalk, Feishu, webhook); null: unsigned. */
    secret: string | null;
    /** JSON array of the notification types the channel gets as a whole (team subscriptions). */
    subscriptions: string;
    /** 1: personal notices of the team's people go through it (e-mail to them, an @ of them in the group). */
    personal: number;
    /** The language of its team messages: zh-CN | en. */
    locale: string;
    /** JSON of kind-specific settings that are not secret (the e-mail sender). */
    settings: string;
    /** 1 on, 0 off. */
    enabled: number;
    created_at: string;
    updated_at: string;
  };
  notification_preferences: {
    user_id: string;
    /** JSON array of muted personal notice kinds: mention, reply, reminder, share. */
    muted: string;
    /** The person's choice of language; null: the directory's, else zh-CN. */
    locale: string | null;
    updated_at: string;
  };
}
