import type { Kysely } from 'kysely';
import { defaultTokenResolver, type TokenResolver } from '../auth/token-resolver.js';
import type { Config } from '../config/config.js';
import type { StoreDirectory } from '../directory/directory.js';
import { DirectoryService } from '../directory/directory-service.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { eventEffects } from '../store/events/event-effects.js';
import { eventLog, type EventOutcome, type LoggedEvent } from '../store/events/event-log.js';
import { reminders } from '../store/events/reminders.js';
import type { Database } from '../store/schema/schema.js';
import { SqlDirectory } from '../store/directory-reads/sql-directory.js';
import { sqlShareLinks } from '../store/sharing/share-links.js';
import { activeGuestLink } from '../auth/guest-access.js';
import { formatTime } from '../directory/time.js';
import { NotificationRouter } from '../notify/routing.js';
import { EventAppender } from './event-appender.js';
import { EventIntake, type IntakeAnswer, type IntakeRequest } from './event-intake.js';
import { EventProcessor } from './event-processor.js';
import { parseLoggedBody } from './event-fields.js';
import { readEvent } from './event-reader.js';
import { EventCounters, eventStats, type EventStats } from './event-stats.js';
import { recheckForReprocessing, type TrustLookups } from './event-trust.js';
import { TrustCache } from './trust-cache.js';
import { SILENT_LOG, type TaskLog } from './polling-task.js';
import { yieldToEventLoop } from '../shared/event-loop.js';

export interface EventPipelineDeps {
  db: Kysely<Database>;
  /** Where permissions and users come from (the store's directory or the host application's). */
  directory: StoreDirectory;
  resolveToken: TokenResolver;
  config: Pick<
    Config,
    | 'appId'
    | 'appSecret'
    | 'signatureRequired'
    | 'signatureMaxLifetimeSeconds'
    | 'headerBrand'
    | 'notifyWebhookUrls'
    | 'watermarkTemplate'
    | 'events'
    | 'previousSecrets'
    | 'notify'
  >;
  log?: TaskLog;
  now?: () => number;
  /** Called when processing made notifications (wakes the outbox worker). */
  onNotified?: () => void;
}

/** What re-processing made of an event. */
export interface Reprocessed {
  id: number;
  outcome: EventOutcome;
  problem: string | null;
}

/** Files a reminder id may live on, at most (a real id lives on one). */
const REMINDER_FILES_LOOKED_AT = 10;

/**
 * The event pipeline of one instance: the intake (authenticate, decide, append with group commit,
 * acknowledge) and the processor that derives effects from the log behind it, woken after each append.
 * `app.ts` builds one per app; the `events` command builds one over the store to re-process.
 */
export class EventPipeline {
  readonly counters = new EventCounters();
  readonly processor: EventProcessor;
  private readonly intake: EventIntake;
  private readonly appender: EventAppender;
  private readonly lookups: TrustLookups;
  private readonly db: Kysely<Database>;
  private readonly now: () => number;
  private started = false;

  constructor(private readonly deps: EventPipelineDeps) {
    const { config, db } = deps;
    this.db = db;
    this.now = deps.now ?? Date.now;
    const directory = new DirectoryService(deps.directory, { watermarkTemplate: config.watermarkTemplate, now: this.now });
    this.processor = new EventProcessor(db, directory, {
      receivers: config.notifyWebhookUrls,
      maxFanout: config.events.maxFanout,
      log: deps.log ?? SILENT_LOG,
      now: this.now,
      counters: this.counters,
      router: new NotificationRouter(config.notify, config.notifyWebhookUrls),
      ...(deps.onNotified ? { onNotified: deps.onNotified } : {}),
    });
    this.appender = new EventAppender((events) => eventLog.appendDurably(db, events), {
      onAppended: () => this.processor.wake(),
    });
    const shareLinks = sqlShareLinks(db);
    const lookups: TrustLookups = (this.lookups = {
      trust: new TrustCache(directory),
      reminderFiles: async (reminderId) => [
        ...new Set([...(await reminders.filesWith(db, reminderId)), ...(await eventLog.subjectFiles(db, `reminder:${reminderId}`, REMINDER_FILES_LOOKED_AT))]),
      ],
      revisionAuthor: async (fileId, key) =>
        (await eventLog.subjectActor(db, fileId, `revision:${key}`, 'create')) ?? (/^\d+$/.test(key) ? await eventEffects.revisionAuthor(db, fileId, Number(key)) : undefined),
      guestPermissions: async (guestId, linkId, fileId) => {
        const found = await activeGuestLink(shareLinks, guestId, linkId, formatTime(this.now()));
        return found.ok ? ((await directory.fileAsSeenByGuest(found.link, fileId))?.permissions ?? null) : null;
      },
    });
    this.intake = new EventIntake({
      credentials: {
        app: { appId: config.appId, appSecret: config.appSecret, previousAppSecret: config.previousSecrets.appSecret, maxLifetimeSeconds: config.signatureMaxLifetimeSeconds },
        resolveToken: deps.resolveToken,
        signatureRequired: config.signatureRequired,
        tokenHeader: `X-${config.headerBrand}-Token`,
        signatureHeader: `X-${config.headerBrand}-Signature`,
        now: this.now,
      },
      lookups,
      appender: this.appender,
      counters: this.counters,
      eventHeader: `X-${config.headerBrand}-Sdk-Event`,
      now: this.now,
    });
  }

  /** Starts the processor, unless EVENTS_PROCESSOR is off for this instance. */
  start(): this {
    if (this.deps.config.events.processor && !this.started) {
      this.processor.start();
      this.started = true;
    }
    return this;
  }

  /** One push: answers once the event is durably logged (or refused). */
  receive(request: IntakeRequest): Promise<IntakeAnswer> {
    return this.intake.receive(request);
  }

  /**
   * Derives an event's effects again from its stored body under today's rules (after an upgrade, or once
   * the directory that failed the trust check answers again). A refused event is held to the trust rules
   * again with the user who really sent it (event-trust.ts `recheckForReprocessing`): an `actor_mismatch`
   * or `permission_denied` stays refused. Effects already applied are not applied twice. Undefined for an
   * unknown id.
   */
  async reprocess(id: number): Promise<Reprocessed | undefined> {
    const event = await eventLog.get(this.db, id);
    if (!event) return undefined;
    await this.requeue(event);
    return this.processUntilDone(id);
  }

  /** Re-processes every event with the outcome (at most `limit`); returns how many were put back. */
  async reprocessOutcome(outcome: Exclude<EventOutcome, 'pending'>, limit = 10_000): Promise<Reprocessed[]> {
    const done: Reprocessed[] = [];
    let after = 0;
    while (done.length < limit) {
      const page = await eventLog.list(this.db, { outcomes: [outcome], after, limit: Math.min(500, limit - done.length) });
      const requeued: number[] = [];
      for (const event of page.items) if (await this.requeue(event)) requeued.push(event.id);
      if (requeued.length > 0) await this.processor.drain();
      for (const event of page.items) {
        const now = await eventLog.get(this.db, event.id);
        if (now) done.push({ id: now.id, outcome: now.outcome, problem: now.problem });
      }
      if (page.next === null) break;
      after = page.next;
    }
    return done;
  }

  /** The pipeline's figures (src/events/event-stats.ts). */
  stats(): Promise<EventStats> {
    return eventStats(this.db, this.counters, this.now());
  }

  /** Stops the processor (after its current step) and waits for appends in flight. */
  async close(): Promise<void> {
    await this.appender.settle();
    if (this.started) await this.processor.stop();
  }

  /**
   * Puts the event back to pending, with its file and subject read again from the body and its actor as
   * the trust rules find it again; false when it stays refused (its reason updated).
   */
  private async requeue(event: LoggedEvent): Promise<boolean> {
    const read = readEvent(event.kind, parseLoggedBody(event.body));
    const recheck = await recheckForReprocessing(event, read, this.lookups);
    if (!recheck.accepted) {
      await eventLog.refuseAgain(this.db, event.id, recheck.problem);
      return false;
    }
    await eventLog.requeue(this.db, event.id, {
      fileId: recheck.fileId ?? read.fileId ?? event.fileId,
      userId: recheck.actorId,
      subject: read.subject ?? event.subject,
    });
    return true;
  }

  private async processUntilDone(id: number): Promise<Reprocessed | undefined> {
    for (;;) {
      const event = await eventLog.get(this.db, id);
      if (!event) return undefined;
      if (event.outcome !== 'pending') return { id, outcome: event.outcome, problem: event.problem };
      await this.processor.runOnce();
      await yieldToEventLoop();
    }
  }
}

/**
 * The pipeline over collab-host's own store and directory, with collab-host's own tokens: what a command
 * run outside the server (`collab-host events …`) works with. The server's app builds its own in
 * `buildApp`, over whatever directory and token resolver it was given.
 */
export function eventPipelineOverStore(store: OpenDatabase, config: Config): EventPipeline {
  return new EventPipeline({ db: store.db, directory: SqlDirectory.over(store), resolveToken: defaultTokenResolver(config.tokenSecret), config });
}
