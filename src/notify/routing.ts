import type { NotifyConfig } from '../config/notify.js';
import { notificationPreferences } from '../store/notify/notification-preferences.js';
import { notifyLookups, type NoticePerson } from '../store/notify/notify-lookups.js';
import type { NotificationDraft, PlannedDelivery } from '../store/notify/outbox.js';
import type { Db } from '../store/schema/schema.js';
import { channelReceiver, type Channel, type PersonalKind } from './channel.js';
import { allChannels } from './channel-source.js';

/** A person a notification is a personal notice for. */
interface Notice {
  userId: string;
  kind: PersonalKind;
  /** Who did it: nobody hears of their own actions (a reminder one set for oneself still reminds). */
  actorId: string | null;
}

type Data = Record<string, unknown>;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const texts = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

/**
 * Where each new notification goes (docs/notifications.md, "Routing"), worked out in the transaction
 * that makes it: every NOTIFY_WEBHOOK_URLS receiver as before; each channel subscribed to its type
 * (a team's channel only for its team's files); and, for a personal notice (a mention, a reply to one's
 * comment, a reminder due, a file shared with one), each personal channel of the person's team that can
 * reach them: an e-mail channel when they have an address, a bot when they have its IM identity. No one
 * hears of their own actions; a deactivated person, or one who muted the kind, gets nothing; a mention
 * waits the digest window, so a person's mentions within it go out as one message.
 */
export class NotificationRouter {
  constructor(
    private readonly config: NotifyConfig,
    private readonly webhookUrls: readonly string[],
  ) {}

  async route(db: Db, drafts: readonly NotificationDraft[], nowMs: number): Promise<NotificationDraft[]> {
    if (drafts.length === 0) return [];
    const channels = (await allChannels(db, this.config)).filter((channel) => channel.enabled);
    if (channels.length === 0) return [...drafts];
    const notices = await this.notices(db, drafts);
    const userIds = [...new Set([...notices.values()].flat().map((notice) => notice.userId))];
    const subscribed = drafts.some((draft) => channels.some((channel) => channel.subscriptions.includes(draft.type)));
    const [people, preferences, files] = await Promise.all([
      notifyLookups.people(db, userIds),
      notificationPreferences.of(db, userIds),
      subscribed
        ? notifyLookups.files(
            db,
            drafts.flatMap((draft) => text(draft.data.fileId) ?? []),
          )
        : Promise.resolve(new Map<string, { teamId: string | null }>()),
    ]);
    return drafts.map((draft) => {
      const deliveries: PlannedDelivery[] = this.webhookUrls.map((receiver) => ({ receiver }));
      for (const notice of notices.get(draft) ?? []) {
        const person = people.get(notice.userId);
        if (!person || !person.active || notice.actorId === notice.userId) continue;
        if (preferences.get(notice.userId)?.muted.includes(notice.kind)) continue;
        const dueMs = notice.kind === 'mention' ? nowMs + this.config.digestWindowMs : nowMs;
        for (const channel of channels) {
          if (channel.personal && (channel.teamId === null || channel.teamId === person.teamId) && reaches(channel, person)) {
            deliveries.push({ receiver: channelReceiver(channel.id), recipient: person.id, dueMs });
          }
        }
      }
      const fileId = text(draft.data.fileId);
      for (const channel of channels) {
        if (!channel.subscriptions.includes(draft.type)) continue;
        if (channel.teamId !== null && fileId !== null && files.get(fileId)?.teamId !== channel.teamId) continue;
        deliveries.push({ receiver: channelReceiver(channel.id) });
      }
      return { ...draft, deliveries };
    });
  }

  /** The personal notices of each draft. */
  private async notices(db: Db, drafts: readonly NotificationDraft[]): Promise<Map<NotificationDraft, Notice[]>> {
    const replies = drafts.filter((draft) => draft.type === 'comment.created' && text(draft.data.replyTo) !== null && text(draft.data.fileId) !== null);
    const authors = await notifyLookups.commentAuthors(
      db,
      replies.map((draft) => ({ fileId: text(draft.data.fileId)!, commentId: text(draft.data.replyTo)! })),
    );
    // A reply to a comment made in the same batch: its author is in the batch, not in the store yet.
    for (const draft of drafts) {
      if (draft.type === 'comment.created' && text(draft.data.userId) !== null) authors.set(`${text(draft.data.fileId)}:${text(draft.data.commentId)}`, text(draft.data.userId)!);
    }
    return new Map(
      drafts.map((draft): [NotificationDraft, Notice[]] => {
        const data: Data = draft.data;
        switch (draft.type) {
          case 'mention.created':
            return [draft, text(data.userId) === null ? [] : [{ userId: text(data.userId)!, kind: 'mention', actorId: text(data.byUserId) }]];
          case 'comment.created': {
            const author = authors.get(`${text(data.fileId)}:${text(data.replyTo)}`);
            // One mentioned in the reply hears of it as a mention.
            const notice = author !== undefined && !texts(data.mentionedUserIds).includes(author);
            return [draft, notice ? [{ userId: author, kind: 'reply', actorId: text(data.userId) }] : []];
          }
          case 'reminder.due':
            return [draft, texts(data.remindUserIds).map((userId) => ({ userId, kind: 'reminder', actorId: null }))];
          case 'file.shared':
            return [draft, text(data.userId) === null ? [] : [{ userId: text(data.userId)!, kind: 'share', actorId: text(data.byUserId) }]];
          default:
            return [draft, []];
        }
      }),
    );
  }
}

/** Whether a personal channel can reach the person: an e-mail address, or an identity in the bot's IM. */
function reaches(channel: Channel, person: NoticePerson): boolean {
  if (channel.kind === 'email') return person.email !== null && person.email !== '';
  if (channel.kind === 'webhook') return true;
  return typeof person.im[channel.kind] === 'string';
}
