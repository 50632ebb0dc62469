import type { ChannelDispatcher } from '../notify/dispatcher.js';
import { redactUrl } from '../shared/redaction.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { outbox, type ClaimedDelivery, type DeliveryOutcome } from '../store/notify/outbox.js';
import { PollingWorker, SILENT_LOG, type TaskLog } from './polling-task.js';
import { signWebhookBody } from './webhook-signature.js';

export interface OutboxWorkerOptions {
  /** NOTIFY_WEBHOOK_SECRET (and NOTIFY_WEBHOOK_SECRET_PREVIOUS during a rotation); without it notifications go unsigned (start-up warns). */
  secret: string | readonly string[] | undefined;
  /** Per-request time-out. */
  timeoutMs?: number;
  /** Attempts per receiver before the delivery is failed (re-send puts it back). */
  maxAttempts?: number;
  /** First retry delay; doubles on each attempt up to `maxDelayMs`, with jitter. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  pollMs?: number;
  batchSize?: number;
  /**
   * How long a claim holds a delivery without being renewed: the worker renews its claims every third of
   * it while it sends, so a dead instance's deliveries are taken by another within about this long.
   */
  leaseMs?: number;
  log?: TaskLog;
  now?: () => number;
  random?: () => number;
  /**
   * Runs `renew` every `everyMs` until the returned function is called (by default a timer). Tests pass
   * one they step themselves, with `now`, so that a lease's life does not depend on the machine's load.
   */
  scheduleRenewal?: (everyMs: number, renew: () => Promise<void>) => () => void;
  /** Sends the deliveries of notification channels (`channel:<id>` receivers: e-mail, bots; src/notify/). */
  channels?: Pick<ChannelDispatcher, 'handles' | 'deliver'>;
}

/** Renews on a timer: `renew` never rejects (a failed renewal is logged by the worker). */
function renewOnTimer(everyMs: number, renew: () => Promise<void>): () => void {
  const timer = setInterval(() => void renew(), everyMs);
  return () => clearInterval(timer);
}

export const OUTBOX_DEFAULTS = { timeoutMs: 10_000, maxAttempts: 8, baseDelayMs: 1_000, maxDelayMs: 10 * 60_000, pollMs: 500, batchSize: 50, leaseMs: 5_000 };

/**
 * Delay before attempt `attempt + 1`: exponential (base · 2^(attempt-1), capped) with "equal jitter", half
 * fixed and half random, so receivers that failed together are not all retried in the same instant.
 */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * Sends the outbox: claims due deliveries, POSTs `{ id, type, occurredAt, data }` to each receiver with
 * `X-Collab-Delivery` and `X-Collab-Signature`, and records the outcome. A 2xx answer is delivered;
 * anything else (status, time-out, refused connection) is retried with backoff until `maxAttempts`.
 */
export class OutboxWorker extends PollingWorker {
  private readonly options: Required<Omit<OutboxWorkerOptions, 'secret' | 'channels'>> & Pick<OutboxWorkerOptions, 'secret' | 'channels'>;

  constructor(
    private readonly store: OpenDatabase,
    options: OutboxWorkerOptions,
  ) {
    const resolved = { ...OUTBOX_DEFAULTS, log: SILENT_LOG, now: Date.now, random: Math.random, scheduleRenewal: renewOnTimer, ...options };
    super('outbox-worker', resolved);
    this.options = resolved;
  }

  /** Claims one batch and sends it; returns how many deliveries were attempted. */
  async runOnce(): Promise<number> {
    const { batchSize, timeoutMs, leaseMs } = this.options;
    const claims = await outbox.claimDue(this.store.db, { limit: batchSize, leaseMs, nowMs: this.options.now() });
    if (claims.length === 0) return 0;
    // A short lease, renewed while this worker sends: a live worker keeps its claims (and records its own
    // outcomes) however long a receiver takes; a dead one's run out within leaseMs.
    const claimToken = claims[0]!.claimToken;
    const stopRenewing = this.options.scheduleRenewal(Math.max(1, Math.floor(leaseMs / 3)), () =>
      outbox
        .renewClaims(this.store.db, claimToken, this.options.now() + leaseMs)
        .catch((error: unknown) => this.options.log.warn({ err: error }, 'could not renew the claims of deliveries being sent')),
    );
    try {
      const { channels } = this.options;
      const forChannels = channels ? claims.filter((claim) => channels.handles(claim)) : [];
      const { maxAttempts, baseDelayMs, maxDelayMs, random } = this.options;
      await Promise.all([
        ...claims.filter((claim) => !forChannels.includes(claim)).map((claim) => this.deliver(claim)),
        channels?.deliver(forChannels, { maxAttempts, timeoutMs, leaseMs, delayAfter: (attempt) => backoffDelay(attempt, baseDelayMs, maxDelayMs, random) }),
      ]);
    } finally {
      stopRenewing();
    }
    return claims.length;
  }

  private async deliver(claim: ClaimedDelivery): Promise<void> {
    const { id, type, occurredAt, data } = claim.notification;
    const body = JSON.stringify({ id, type, occurredAt, data });
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-collab-delivery': id };
    if (this.options.secret !== undefined && this.options.secret.length > 0) headers['x-collab-signature'] = signWebhookBody(body, this.options.secret);
    let error: string;
    try {
      const response = await fetch(claim.receiver, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.options.timeoutMs) });
      await response.body?.cancel();
      if (response.status >= 200 && response.status < 300) {
        await outbox.recordAttempt(this.store.db, claim, { status: 'delivered', nowMs: this.options.now() });
        return;
      }
      error = `HTTP ${response.status}`;
    } catch (failure) {
      error = failure instanceof Error && failure.name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : describe(failure);
    }
    const { maxAttempts, baseDelayMs, maxDelayMs } = this.options;
    const outcome: DeliveryOutcome =
      claim.attempt >= maxAttempts
        ? { status: 'failed', error }
        : { status: 'pending', error, nextAttemptMs: this.options.now() + backoffDelay(claim.attempt, baseDelayMs, maxDelayMs, this.options.random) };
    // A receiver that is down fails every notification: only the final failure is a warning.
    const log = outcome.status === 'failed' ? this.options.log.warn : this.options.log.info;
    log.call(
      this.options.log,
      { notificationId: id, receiver: redactUrl(claim.receiver), attempt: claim.attempt, error, outcome: outcome.status },
      outcome.status === 'failed' ? 'notification delivery failed for good' : 'notification delivery failed; will retry',
    );
    await outbox.recordAttempt(this.store.db, claim, outcome);
  }
}

function describe(failure: unknown): string {
  if (!(failure instanceof Error)) return String(failure);
  const cause = (failure as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? failure.message;
}
