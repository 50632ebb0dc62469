import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { NotifyConfig } from '../config/notify.js';
import { redactText, redactUrl } from '../shared/redaction.js';
import { notificationPreferences } from '../store/notify/notification-preferences.js';
import { claimDigestSiblings, claimMessageRest, fixDigestMessage } from '../store/notify/notify-digest.js';
import { notifyLookups } from '../store/notify/notify-lookups.js';
import { outbox, type ClaimedDelivery, type DeliveryOutcome } from '../store/notify/outbox.js';
import type { Database } from '../store/schema/schema.js';
import { ADAPTERS } from './adapters/index.js';
import type { SendResult } from './adapters/adapter.js';
import { channelIdOf, DEFAULT_RATE_PER_MINUTE, type Channel } from './channel.js';
import { allChannels } from './channel-source.js';
import { composeMessage, namedIn, type OutboxNotification } from './message.js';
import { RateLimiter } from './rate-limit.js';

/** How the outbox worker retries (src/events/outbox-worker.ts hands its own settings). */
export interface RetryPolicy {
  maxAttempts: number;
  /** Delay before the next attempt after `attempt` failed. */
  delayAfter(attempt: number): number;
  timeoutMs: number;
  leaseMs: number;
}

export interface DispatchLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

/** The most notices one digest message carries. */
const DIGEST_LIMIT = 50;

/**
 * Sends the outbox's channel deliveries (`channel:<id>` receivers) through their adapters: groups a
 * person's mentions into one message (with the rest of their digest, claimed from the store), keeps each
 * receiver within its rate, holds back a failing receiver's other deliveries until its next retry (they
 * are deferred, not counted as attempts, and never hold up other receivers), and records every outcome.
 */
export class ChannelDispatcher {
  private readonly limiter = new RateLimiter();
  /** Receivers (or receiver and person, for e-mail) in back-off after a failure: until when. */
  private readonly failing = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly config: NotifyConfig,
    private readonly options: { now: () => number; log: DispatchLog },
  ) {}

  handles(claim: ClaimedDelivery): boolean {
    return channelIdOf(claim.receiver) !== undefined;
  }

  async deliver(claims: readonly ClaimedDelivery[], policy: RetryPolicy): Promise<void> {
    if (claims.length === 0) return;
    const channels = new Map((await allChannels(this.db, this.config)).map((channel) => [channel.id, channel]));
    const groups = new Map<string, ClaimedDelivery[]>();
    // A person's mentions go as one message only with a digest window: with none (0) each goes alone, so
    // its idempotency key is the same on every attempt, also when a crash splits the batch it came in.
    // A digest's members and key are fixed at its first claim (stored on its deliveries): claimed again
    // (after a crash, a retry), it goes as the same message, and later mentions go in another.
    const digests = this.config.digestWindowMs > 0;
    for (const claim of claims) {
      const key = claim.messageKey !== null ? `=${claim.messageKey}` : digests && isDigestible(claim) ? `${claim.receiver}\n${claim.recipient}` : `#${claim.deliveryId}`;
      groups.set(key, [...(groups.get(key) ?? []), claim]);
    }
    const inBatch = claims.map((claim) => claim.deliveryId);
    await Promise.all(
      [...groups.values()].map(async (group) => {
        const head = group[0]!;
        const nowMs = this.options.now();
        const fixed = await this.gather(group, { digests, leaseMs: policy.leaseMs, nowMs, exclude: inBatch }).catch((error: unknown) => {
          this.options.log.warn({ err: error, receiver: head.receiver }, 'notification delivery could not be claimed');
          return null;
        });
        if (fixed === null) return;
        const send = fixed.complete
          ? this.send(group, channels.get(channelIdOf(head.receiver)!), policy, fixed.key)
          : // Another worker holds part of this message: neither sends a part; it goes whole after.
            this.record(group, { status: 'deferred', nextAttemptMs: nowMs + policy.leaseMs });
        await send.catch((error: unknown) =>
          // A fault of our own (the store): the claims' leases run out and the deliveries are taken again.
          this.options.log.warn({ err: error, receiver: head.receiver }, 'notification delivery could not be recorded'),
        );
      }),
    );
  }

  /**
   * Completes a group into its message (adds to `group`) and gives its key: a message fixed before gets
   * the rest of its members; a new digest the person's other pending mentions, then is fixed (stored).
   */
  private async gather(
    group: ClaimedDelivery[],
    options: { digests: boolean; leaseMs: number; nowMs: number; exclude: readonly number[] },
  ): Promise<{ key: string; complete: boolean }> {
    const head = group[0]!;
    if (head.messageKey !== null) {
      const rest = await claimMessageRest(this.db, { ...head, messageKey: head.messageKey }, options);
      group.push(...rest.members);
      return { key: head.messageKey, complete: rest.complete };
    }
    if (!options.digests || !isDigestible(head)) return { key: idempotencyKey(group), complete: true };
    if (group.length < DIGEST_LIMIT) {
      const siblings = { type: 'mention.created', leaseMs: options.leaseMs, nowMs: options.nowMs, limit: DIGEST_LIMIT - group.length, exclude: options.exclude };
      group.push(...(await claimDigestSiblings(this.db, head, siblings)));
    }
    const key = idempotencyKey(group);
    await fixDigestMessage(
      this.db,
      head.claimToken,
      group.map((claim) => claim.deliveryId),
      key,
    );
    return { key, complete: true };
  }

  private async send(group: ClaimedDelivery[], channel: Channel | undefined, policy: RetryPolicy, key: string): Promise<void> {
    const head = group[0]!;
    const nowMs = this.options.now();
    if (!channel || !channel.enabled) return this.record(group, { status: 'failed', error: channel ? 'the channel is disabled' : 'the channel no longer exists' });
    const gate = channel.kind === 'email' ? `${head.receiver}\n${head.recipient ?? ''}` : head.receiver;
    const blockedUntil = this.failing.get(gate) ?? 0;
    if (blockedUntil > nowMs) return this.record(group, { status: 'deferred', nextAttemptMs: blockedUntil });
    const perMinute = channel.ratePerMinute ?? DEFAULT_RATE_PER_MINUTE[channel.kind];
    const wait = this.limiter.take(gate, perMinute, nowMs);
    if (wait > 0) return this.record(group, { status: 'deferred', nextAttemptMs: nowMs + wait });

    const notifications: OutboxNotification[] = group.map((claim) => claim.notification);
    const named = namedIn(notifications);
    const [people, files, preferences] = await Promise.all([
      notifyLookups.people(this.db, head.recipient === null ? named.userIds : [...named.userIds, head.recipient]),
      notifyLookups.files(this.db, named.fileIds),
      notificationPreferences.of(this.db, head.recipient === null ? [] : [head.recipient]),
    ]);
    let recipient = null;
    if (head.recipient !== null) {
      const person = people.get(head.recipient);
      // Routing left out deactivated people; one deactivated since (in a digest window) gets nothing either.
      if (!person || !person.active) return this.record(group, { status: 'failed', error: 'not sent: the recipient is deactivated or no longer in the directory' });
      recipient = { person, preferredLocale: preferences.get(head.recipient)?.locale ?? null };
    }
    const message = composeMessage(notifications, {
      channel,
      recipient,
      people,
      files,
      documentUrlTemplate: this.config.documentUrlTemplate,
      templates: this.config.templates,
      defaultLocale: this.config.defaultLocale,
    });
    const result: SendResult = await ADAPTERS[channel.kind].send({
      channel,
      message,
      notifications,
      idempotencyKey: key,
      // Signatures carry the wall clock: the vendor compares it with its own.
      nowMs: Date.now(),
      timeoutMs: policy.timeoutMs,
    });
    if (result.ok) {
      this.failing.delete(gate);
      return this.record(group, { status: 'delivered', nowMs: this.options.now() });
    }
    const error = redactText(result.error);
    const attempt = Math.max(...group.map((claim) => claim.attempt));
    const last = result.permanent === true || attempt >= policy.maxAttempts;
    const nextAttemptMs = this.options.now() + Math.max(policy.delayAfter(attempt), result.retryAfterMs ?? 0);
    if (!last) this.failing.set(gate, nextAttemptMs);
    (last ? this.options.log.warn : this.options.log.info).call(
      this.options.log,
      { notificationIds: group.map((claim) => claim.notification.id), receiver: redactUrl(head.receiver), channel: channel.kind, attempt, error },
      last ? 'notification delivery failed for good' : 'notification delivery failed; will retry',
    );
    return this.record(group, last ? { status: 'failed', error } : { status: 'pending', error, nextAttemptMs });
  }

  /** Records a message's outcome on all its deliveries at once: a crash never leaves a message half recorded. */
  private async record(group: readonly ClaimedDelivery[], outcome: DeliveryOutcome): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const claim of group) await outbox.recordAttempt(trx, claim, outcome);
    });
  }
}

/** A delivery that may go in a person's digest: a mention to a person. */
function isDigestible(claim: ClaimedDelivery): boolean {
  return claim.recipient !== null && claim.notification.type === 'mention.created';
}

/**
 * The idempotency key of a delivery: the same for every attempt of the same notices to the same receiver
 * and person (an e-mail's Message-ID, X-Collab-Delivery / Idempotency-Key of a webhook).
 */
function idempotencyKey(group: readonly ClaimedDelivery[]): string {
  const head = group[0]!;
  const ids = group.map((claim) => claim.notification.id).sort();
  return createHash('sha256')
    .update(JSON.stringify([head.receiver, head.recipient, ids]))
    .digest('hex')
    .slice(0, 40);
}
