import { createHash } from 'node:crypto';
import type { NotifyConfig } from '../config/notify.js';
import { formatTime } from '../directory/time.js';
import { channelDeliveries, EMPTY_SUMMARY } from '../store/notify/channel-deliveries.js';
import type { ChannelDelivery, ChannelView, ReceiverSummary } from './channel-shapes.js';
import { notificationChannels } from '../store/notify/notification-channels.js';
import { NO_PREFERENCES, notificationPreferences, type NotificationPreferences } from '../store/notify/notification-preferences.js';
import type { Db } from '../store/schema/schema.js';
import { channelReceiver, type Channel, type ChannelKind, type Locale } from './channel.js';

export type { ChannelView } from './channel-shapes.js';
import { allChannels } from './channel-source.js';

/** What a PUT gives: `target` and `secret` may be left out to keep the stored ones (they are never shown). */
export interface ChannelInput {
  kind: ChannelKind;
  name: string;
  teamId?: string | null;
  target?: string;
  secret?: string | null;
  subscriptions?: string[];
  personal?: boolean;
  locale?: Locale;
  from?: string | null;
  ratePerMinute?: number | null;
  enabled?: boolean;
}

/** A refusal of a channel change, for the route to answer (4xx). */
export interface ChannelRefusal {
  status: 400 | 404 | 409 | 412;
  code: string;
  message: string;
}

/** The origin of a target URL: webhook keys live in the path or the query, SMTP credentials in the user-info. */
export function targetHint(target: string): string {
  try {
    const url = new URL(target);
    return `${url.protocol}//${url.host}${url.pathname === '/' && url.search === '' ? '' : '/…'}`;
  } catch {
    return '[unreadable]';
  }
}

function view(channel: Channel, deliveries: ReceiverSummary | undefined): ChannelView {
  const { target, secret, ...shown } = channel;
  return { ...shown, target: targetHint(target), secretSet: secret !== null && secret !== '', deliveries: deliveries ?? { ...EMPTY_SUMMARY } };
}

export async function listChannels(db: Db, config: NotifyConfig): Promise<ChannelView[]> {
  const channels = await allChannels(db, config);
  const summaries = await channelDeliveries.summaries(
    db,
    channels.map((channel) => channelReceiver(channel.id)),
  );
  return channels.map((channel) => view(channel, summaries.get(channelReceiver(channel.id))));
}

export async function getChannel(db: Db, config: NotifyConfig, id: string): Promise<ChannelView | undefined> {
  return (await listChannels(db, config)).find((channel) => channel.id === id);
}

/**
 * The entity tag of a stored channel: a digest of everything it is made of (its target and secret
 * included, which the tag does not reveal), so any change by any writer gives another tag. An
 * environment channel has none (it is not written through the API).
 */
export function channelTag(channel: Channel): string {
  const { createdAt: _created, updatedAt: _updated, ...made } = channel;
  return `"${createHash('sha256').update(JSON.stringify(made)).digest('base64url').slice(0, 27)}"`;
}

/** The stored channel's entity tag, if it is stored. */
export async function storedChannelTag(db: Db, id: string): Promise<string | undefined> {
  const stored = await notificationChannels.get(db, id);
  return stored && channelTag(stored);
}

/** The refusal (412) of a write whose If-Match (`*` or a list of tags) does not name the stored channel. */
function preconditionRefusal(id: string, ifMatch: string | undefined, stored: Channel | undefined): ChannelRefusal | undefined {
  if (ifMatch === undefined) return undefined;
  const matches =
    ifMatch.trim() === '*' ? stored !== undefined : stored !== undefined && ifMatch.split(',').some((given) => given.trim().replace(/^W\//, '') === channelTag(stored));
  return matches ? undefined : { status: 412, code: 'precondition_failed', message: `channel ${id} is not the version If-Match names: read it again` };
}

const TARGET_RULE: Record<ChannelKind, { pattern: RegExp; words: string }> = {
  email: { pattern: /^smtps?:\/\/[^/]/i, words: 'an smtp:// or smtps:// URL' },
  wecom: { pattern: /^https?:\/\/[^/]/i, words: 'the bot’s http(s):// webhook address' },
  dingtalk: { pattern: /^https?:\/\/[^/]/i, words: 'the bot’s http(s):// webhook address' },
  feishu: { pattern: /^https?:\/\/[^/]/i, words: 'the bot’s http(s):// webhook address' },
  slack: { pattern: /^https?:\/\/[^/]/i, words: 'the incoming webhook’s http(s):// address' },
  webhook: { pattern: /^https?:\/\/[^/]/i, words: 'an http(s):// address' },
};

/**
 * Creates or replaces a stored channel (the environment's channels are read-only). What the input leaves out (`target`, `secret`, `from`) is kept from the
 * stored channel, read with its row locked in the write's transaction: a concurrent PUT is never undone.
 */
export function putChannel(
  db: Db,
  config: NotifyConfig,
  id: string,
  input: ChannelInput,
  nowMs: number,
  ifMatch?: string,
): Promise<{ created: boolean; channel: ChannelView; tag: string } | { refused: ChannelRefusal }> {
  return db.transaction().execute((trx) => putChannelIn(trx, config, id, input, nowMs, ifMatch));
}

async function putChannelIn(
  db: Db,
  config: NotifyConfig,
  id: string,
  input: ChannelInput,
  nowMs: number,
  ifMatch: string | undefined,
): Promise<{ created: boolean; channel: ChannelView; tag: string } | { refused: ChannelRefusal }> {
  if ((await allChannels(db, config)).some((channel) => channel.id === id && channel.source === 'env')) {
    return { refused: { status: 409, code: 'channel_from_environment', message: `channel ${id} comes from the environment; change its variables instead` } };
  }
  const stored = await notificationChannels.get(db, id, { lock: true });
  const precondition = preconditionRefusal(id, ifMatch, stored);
  if (precondition) return { refused: precondition };
  const target = input.target ?? (stored && stored.kind === input.kind ? stored.target : undefined);
  if (target === undefined) return { refused: { status: 400, code: 'target_required', message: `a new ${input.kind} channel needs its target: ${TARGET_RULE[input.kind].words}` } };
  if (!TARGET_RULE[input.kind].pattern.test(target)) return { refused: { status: 400, code: 'invalid_target', message: `target must be ${TARGET_RULE[input.kind].words}` } };
  try {
    new URL(target);
  } catch {
    return { refused: { status: 400, code: 'invalid_target', message: `target must be ${TARGET_RULE[input.kind].words}` } };
  }
  const teamId = input.teamId ?? null;
  if (teamId !== null && !(await notificationChannels.teamExists(db, teamId))) return { refused: { status: 400, code: 'team_not_found', message: `no team ${teamId}` } };
  if (input.kind === 'email' && !(input.from ?? stored?.from)) return { refused: { status: 400, code: 'from_required', message: 'an e-mail channel needs its sender: from' } };
  const channel: Omit<Channel, 'source' | 'createdAt' | 'updatedAt'> = {
    id,
    kind: input.kind,
    name: input.name,
    teamId,
    target,
    secret: input.secret === undefined ? (stored?.secret ?? null) : input.secret,
    subscriptions: [...new Set(input.subscriptions ?? [])],
    personal: input.personal ?? input.kind === 'email',
    locale: input.locale ?? 'zh-CN',
    from: input.from === undefined ? (stored?.from ?? null) : input.from,
    ratePerMinute: input.ratePerMinute ?? null,
    enabled: input.enabled ?? true,
  };
  const outcome = await notificationChannels.put(db, channel, formatTime(nowMs));
  return { created: outcome === 'created', channel: (await getChannel(db, config, id))!, tag: (await storedChannelTag(db, id))! };
}

export function removeChannel(db: Db, config: NotifyConfig, id: string, ifMatch?: string): Promise<ChannelRefusal | undefined> {
  return db.transaction().execute(async (trx) => {
    if ((await allChannels(trx, config)).some((channel) => channel.id === id && channel.source === 'env')) {
      return { status: 409, code: 'channel_from_environment', message: `channel ${id} comes from the environment; unset its variables instead` } as const;
    }
    const precondition = ifMatch === undefined ? undefined : preconditionRefusal(id, ifMatch, await notificationChannels.get(trx, id, { lock: true }));
    if (precondition) return precondition;
    return (await notificationChannels.remove(trx, id)) ? undefined : ({ status: 404, code: 'channel_not_found', message: `no channel ${id}` } as const);
  });
}

/** A person's preferences (the defaults when they set none); undefined for an unknown user. */
export async function preferencesOf(db: Db, userId: string): Promise<NotificationPreferences | undefined> {
  if (!(await notificationChannels.userExists(db, userId))) return undefined;
  return (await notificationPreferences.of(db, [userId])).get(userId) ?? { ...NO_PREFERENCES, muted: [] };
}

export async function setPreferences(db: Db, userId: string, preferences: NotificationPreferences, nowMs: number): Promise<NotificationPreferences | undefined> {
  if (!(await notificationChannels.userExists(db, userId))) return undefined;
  const stored = { muted: [...new Set(preferences.muted)].sort(), locale: preferences.locale };
  await notificationPreferences.put(db, userId, stored, formatTime(nowMs));
  return stored;
}

/** The functions above over one store and configuration: what the management API's channel routes call. */
export interface ChannelManagement {
  list(): Promise<ChannelView[]>;
  get(id: string): Promise<ChannelView | undefined>;
  storedTag(id: string): Promise<string | undefined>;
  put(id: string, input: ChannelInput, nowMs: number, ifMatch?: string): Promise<{ created: boolean; channel: ChannelView; tag: string } | { refused: ChannelRefusal }>;
  remove(id: string, ifMatch?: string): Promise<ChannelRefusal | undefined>;
  /** A channel's deliveries, newest first, before `before` (a delivery id; 0: from the newest). */
  deliveries(id: string, filter: { status?: string; before: number; limit: number }): Promise<{ items: ChannelDelivery[]; next: number | null }>;
  preferencesOf(userId: string): Promise<NotificationPreferences | undefined>;
  setPreferences(userId: string, preferences: NotificationPreferences, nowMs: number): Promise<NotificationPreferences | undefined>;
}

export function channelManagement(db: Db, config: NotifyConfig): ChannelManagement {
  return {
    list: () => listChannels(db, config),
    get: (id) => getChannel(db, config, id),
    storedTag: (id) => storedChannelTag(db, id),
    put: (id, input, nowMs, ifMatch) => putChannel(db, config, id, input, nowMs, ifMatch),
    remove: (id, ifMatch) => removeChannel(db, config, id, ifMatch),
    deliveries: (id, filter) => channelDeliveries.list(db, channelReceiver(id), filter),
    preferencesOf: (userId) => preferencesOf(db, userId),
    setPreferences: (userId, preferences, nowMs) => setPreferences(db, userId, preferences, nowMs),
  };
}
