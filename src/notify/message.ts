import type { NoticeFile, NoticePerson } from '../store/notify/notify-lookups.js';
import { localeOf, type Channel, type Locale } from './channel.js';
import { fill, templateFor, WORDS, type TemplateOverrides } from './templates.js';

/** One notification as a message shows it. */
export interface MessageItem {
  line: string;
  /** The comment's (or reminder's, or error's) text, shortened; null when there is none. */
  excerpt: string | null;
  link: { label: string; url: string } | null;
}

/** A message for one channel (and one person): what every adapter formats in its vendor's way. */
export interface Message {
  locale: Locale;
  subject: string;
  items: MessageItem[];
  footer: string;
  /** The person a personal notice is for, with their id in the channel's IM (null for e-mail and team messages). */
  recipient: { name: string; email: string | null; imId: string | null } | null;
}

/** A notification as the outbox holds it. */
export interface OutboxNotification {
  id: string;
  type: string;
  occurredAt: string;
  data: unknown;
}

export interface MessageContext {
  channel: Channel;
  /** The person of a personal notice, with their own choice of language (preferences). */
  recipient: { person: NoticePerson; preferredLocale: string | null } | null;
  people: ReadonlyMap<string, NoticePerson>;
  files: ReadonlyMap<string, NoticeFile>;
  documentUrlTemplate: string;
  templates: TemplateOverrides;
  defaultLocale: string;
}

/** The longest excerpt a message quotes, in characters. */
const EXCERPT_LENGTH = 200;

/** The users and files a message about these notifications names. */
export function namedIn(notifications: readonly OutboxNotification[]): { userIds: string[]; fileIds: string[] } {
  const userIds = new Set<string>();
  const fileIds = new Set<string>();
  for (const { data } of notifications) {
    const fields = record(data);
    for (const key of ['userId', 'byUserId', 'authorId'] as const) if (typeof fields[key] === 'string') userIds.add(fields[key]);
    if (typeof fields.fileId === 'string') fileIds.add(fields.fileId);
  }
  return { userIds: [...userIds], fileIds: [...fileIds] };
}

/**
 * The message of one delivery: one item per notification (several for a digest of mentions), in the
 * person's language (their preference, then their directory entry, then NOTIFY_LOCALE) or, for a team
 * channel, the channel's; the operator's templates over the built-in ones.
 */
export function composeMessage(notifications: readonly OutboxNotification[], context: MessageContext): Message {
  const { channel, recipient } = context;
  const locale = recipient ? localeOf(recipient.preferredLocale, recipient.person.locale, context.defaultLocale) : channel.locale;
  const words = WORDS[locale];
  const items: MessageItem[] = [];
  let subject = '';
  for (const notification of notifications) {
    const kind = kindOf(notification, recipient !== null);
    const values = valuesOf(notification, context, locale);
    const template = templateFor(context.templates, locale, kind);
    const fileId = record(notification.data).fileId;
    items.push({
      line: fill(template.line, values),
      excerpt: values.excerpt || null,
      link: typeof fileId === 'string' ? { label: words.open, url: context.documentUrlTemplate.replaceAll('{fileId}', encodeURIComponent(fileId)) } : null,
    });
    if (subject === '') subject = fill(template.subject, values);
  }
  if (notifications.length > 1) subject = fill(templateFor(context.templates, locale, 'mention.digest').subject, { count: String(notifications.length) });
  const person = recipient?.person;
  return {
    locale,
    subject: oneLine(subject),
    items,
    footer: words.footer,
    recipient: person ? { name: person.name, email: person.email, imId: channel.kind === 'email' ? null : (person.im[channel.kind as keyof NoticePerson['im']] ?? null) } : null,
  };
}

/** Which template a notification takes: personal variants for the person it is for. */
function kindOf(notification: OutboxNotification, personal: boolean): string {
  if (notification.type === 'comment.created' && personal) return 'comment.reply';
  if (notification.type === 'mention.created' && !personal) return 'mention.team';
  return notification.type;
}

function valuesOf(notification: OutboxNotification, context: MessageContext, locale: Locale): Record<string, string> {
  const data = record(notification.data);
  const words = WORDS[locale];
  const text = (value: unknown) => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');
  const actorId = text(
    notification.type === 'mention.created' || notification.type === 'file.shared' ? data.byUserId : notification.type === 'reminder.due' ? data.authorId : data.userId,
  );
  const nameOf = (id: string) => (id === '' ? words.someone : (context.people.get(id)?.name ?? id));
  const fileId = text(data.fileId);
  const content = text(data.content);
  return {
    type: notification.type,
    actor: nameOf(actorId),
    document: fileId === '' ? words.untitled : (context.files.get(fileId)?.name ?? fileId),
    recipient: nameOf(text(data.userId)),
    excerpt: excerpt(notification.type === 'callback.failed' ? text(data.errorMessage) : notification.type === 'reminder.due' ? '' : content),
    count: '1',
    content: oneLine(content),
    remindAt: text(data.remindAt)
      .replace('T', ' ')
      .replace(/:\d\dZ$/, ' UTC'),
    title: text(data.title ?? data.label ?? data.revisionId),
    action: text(data.action),
    version: text(data.version),
    url: text(data.url),
    status: text(data.status),
    error: text(data.errorMessage),
  };
}

function excerpt(text: string): string {
  const flat = oneLine(text);
  return flat.length > EXCERPT_LENGTH ? `${flat.slice(0, EXCERPT_LENGTH - 1)}…` : flat;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
