import { dialectOf } from '../dialect/dialect.js';
import { sql, type Kysely, type Selectable, type SqlBool } from 'kysely';
import { formatTime } from '../../directory/time.js';
import { dialectWork } from '../dialect/dialect-work-for.js';
import { insertNewTypedRows, storableText, type RowTable } from '../statements/row-insert.js';
import type { Database, Db } from '../schema/schema.js';
import type { EventOutcome } from '../schema/tables/events.js';

export type { EventOutcome } from '../schema/tables/events.js';

/** An event to append: authenticated and decided (pending or refused), its body as received. */
export interface NewEvent {
  deliveryKey: string;
  kind: string;
  action: string | null;
  fileId: string | null;
  userId: string | null;
  credential: string;
  /** The token's user, or the user the signature was made for (who really sent it, whatever the body says). */
  senderId: string | null;
  outcome: 'pending' | 'refused';
  problem: string | null;
  subject: string | null;
  receivedMs: number;
  body: string;
}

/** An event as the log holds it. */
export interface LoggedEvent {
  id: number;
  kind: string;
  action: string | null;
  fileId: string | null;
  userId: string | null;
  credential: string;
  /** The token's user, or the user the signature was made for; null otherwise (and on old actor_mismatch refusals). */
  senderId: string | null;
  outcome: EventOutcome;
  problem: string | null;
  subject: string | null;
  receivedAt: string;
  /** null for events logged before 020. */
  receivedMs: number | null;
  effectsMs: number | null;
  body: string;
}

/** What one processing step did: the events it claimed, and how many it left for a later step (see `finish`). */
export interface FinishedStep {
  finished: FinishedEvent[];
  heldBack: number;
}

/** What processing made of a claimed event. */
export interface FinishedEvent {
  id: number;
  outcome: 'processed' | 'unprocessed';
  problem: string | null;
}

export interface EventFilter {
  fileId?: string;
  kind?: string;
  /** A time in the interface's format: events received at or after it. */
  since?: string;
  outcomes?: readonly EventOutcome[];
  /** The id after which the page starts (newest first: before which; 0: from the start). */
  after: number;
  limit: number;
  /** Newest first (the console) instead of oldest first. */
  newestFirst?: boolean;
}

export interface EventPage {
  items: LoggedEvent[];
  /** The position after the last item, or null at the end. */
  next: number | null;
}

/** The log's own figures for the statistics (src/events/event-stats.ts). */
export interface EventLogFigures {
  /** Events per outcome, for the outcomes that stay few: pending, unprocessed, refused. */
  counts: Record<'pending' | 'unprocessed' | 'refused', number>;
  /** When the oldest event still waiting for its effects was received (ms), or null. */
  oldestPendingMs: number | null;
  /** Effect lags (ms) of the most recently received events whose effects are applied, newest first. */
  recentLagsMs: number[];
}

/** The event log: appended by the intake, worked through by the processor, read by the listings. */
export interface EventLogStore {
  /**
   * Appends the events in one transaction; for each, its new id, or null when it is a duplicate (its
   * delivery key is logged already, or an earlier copy is in the same batch).
   */
  append(db: Db, events: readonly NewEvent[]): Promise<Array<number | null>>;
  /** `append` in a transaction of its own that is on disk when the promise settles (the intake's commit). */
  appendDurably(db: Kysely<Database>, events: readonly NewEvent[]): Promise<Array<number | null>>;
  /**
   * Up to `limit` events waiting for their effects, oldest first; with `lane`, only those of the files in
   * that lane (src/store/dialect/dialect-work.ts), without the files another worker is processing right now.
   */
  pending(db: Db, limit: number, lane?: { index: number; of: number }): Promise<LoggedEvent[]>;
  /**
   * One processing step, in one transaction: takes the files of `planned` that no other worker is
   * processing, leaves for a later step a file's events after an earlier one of it that is pending outside
   * `planned` (`heldBack` counts them: the step that takes that one should follow soon), claims those of
   * the events that are still pending (oldest first) writing the outcome each was planned to end with,
   * and lets `apply` apply their effects in the same transaction (a failure rolls the outcomes back with
   * the effects). An event someone else finished meanwhile is left out, so no effect is applied twice.
   * Returns the events claimed, with their outcomes.
   */
  finish(
    db: Kysely<Database>,
    planned: ReadonlyArray<{ event: LoggedEvent; outcome: FinishedEvent['outcome']; problem: string | null }>,
    nowMs: number,
    apply: (trx: Db, claimed: LoggedEvent[]) => Promise<void>,
  ): Promise<FinishedStep>;
  /** How many lanes of files a processor of this store works in side by side (src/store/dialect/dialect-work.ts). */
  lanes(db: Db): number;
  /** Events oldest first after `filter.after`, by file, kind, received time and outcome. */
  list(db: Db, filter: EventFilter): Promise<EventPage>;
  /** One event, or undefined. */
  get(db: Db, id: number): Promise<LoggedEvent | undefined>;
  /** Puts an event back to pending (re-processing), with the file, actor and subject read again. */
  requeue(db: Db, id: number, update: { fileId: string | null; userId: string | null; subject: string | null }): Promise<boolean>;
  /** Keeps a refused event refused (re-processing checked it again), with the reason found now. */
  refuseAgain(db: Db, id: number, problem: string): Promise<boolean>;
  /** Files of the accepted (not refused) events about `subject`, at most `limit`. */
  subjectFiles(db: Db, subject: string, limit: number): Promise<string[]>;
  /** The actor of the first accepted event with `action` about `subject` on the file (a revision's author). */
  subjectActor(db: Db, fileId: string, subject: string, action: string): Promise<string | undefined>;
  /** Figures for the statistics; `lagSample` is how many recent lags to return. */
  figures(db: Db, lagSample: number): Promise<EventLogFigures>;
}

type EventRow = Selectable<Database['events']>;

type EventInsert = Omit<EventRow, 'id' | 'effects_ms'>;

const EVENTS: RowTable<EventInsert> = {
  table: 'events',
  columns: {
    delivery_key: 'text',
    kind: 'text',
    action: 'text',
    file_id: 'text',
    user_id: 'text',
    credential: 'text',
    sender_id: 'text',
    outcome: 'text',
    problem: 'text',
    subject: 'text',
    received_at: 'text',
    received_ms: 'bigint',
    body: 'text',
  },
};

/** Files processed together hold one lock each; events without a file share this key. */
const NO_FILE_KEY = '';

function toLogged(row: EventRow): LoggedEvent {
  return {
    id: Number(row.id),
    kind: row.kind,
    action: row.action,
    fileId: row.file_id,
    userId: row.user_id,
    credential: row.credential,
    senderId: row.sender_id,
    outcome: row.outcome,
    problem: row.problem,
    subject: row.subject,
    receivedAt: row.received_at,
    receivedMs: row.received_ms === null ? null : Number(row.received_ms),
    effectsMs: row.effects_ms === null ? null : Number(row.effects_ms),
    body: row.body,
  };
}

/**
 * For each file (key) of `events`, the oldest pending event not among them that is older than one of theirs,
 * if any: its effects must come before those of theirs after it. The read of pending events can leave such a
 * gap: its "is this file free" test is made row by row (PostgreSQL, MySQL), and the worker that held the file
 * may let it go halfway through the scan, having processed only the events it had read before the newer
 * ones were logged (a gap at the file's oldest events; on MySQL, whose test does not take the lock, also
 * between two of them). Read over the pending events alone (no condition on the file, so no plan walks a
 * busy file's processed history), the events' own rows left out here.
 */
async function earliestGaps(trx: Db, events: readonly LoggedEvent[]): Promise<Map<string, number>> {
  const newest = new Map<string, number>();
  for (const event of events) {
    const key = event.fileId ?? NO_FILE_KEY;
    newest.set(key, Math.max(newest.get(key) ?? 0, event.id));
  }
  const gaps = new Map<string, number>();
  if (newest.size === 0) return gaps;
  const ids = new Set(events.map((event) => event.id));
  const rows = await trx
    .selectFrom('events')
    .select(['id', 'file_id'])
    .where('outcome', '=', 'pending')
    .where('id', '<', Math.max(...newest.values()))
    .execute();
  for (const row of rows) {
    const id = Number(row.id);
    // The key of events without a file stands for no file id and for an empty one alike.
    const key = row.file_id ?? NO_FILE_KEY;
    if (ids.has(id) || id >= (newest.get(key) ?? 0)) continue;
    gaps.set(key, Math.min(gaps.get(key) ?? id, id));
  }
  return gaps;
}

export const eventLog: EventLogStore = {
  async append(db, events) {
    const rows = events.map((event): EventInsert => ({
      delivery_key: event.deliveryKey,
      kind: storableText(event.kind),
      action: storableText(event.action),
      file_id: storableText(event.fileId),
      user_id: storableText(event.userId),
      credential: event.credential,
      sender_id: storableText(event.senderId),
      outcome: event.outcome,
      problem: storableText(event.problem),
      subject: storableText(event.subject),
      received_at: formatTime(event.receivedMs),
      received_ms: event.receivedMs,
      body: event.body,
    }));
    const inserted = await insertNewTypedRows<EventInsert, { id: number; delivery_key: string }>(db, EVENTS, rows, ['id', 'delivery_key']);
    const ids = new Map(inserted.map((row) => [row.delivery_key, Number(row.id)]));
    return events.map((event) => {
      const id = ids.get(event.deliveryKey);
      ids.delete(event.deliveryKey); // a second copy later in the batch is a duplicate
      return id ?? null;
    });
  },

  appendDurably(db, events) {
    return dialectWork(db).durableTransaction(db, async (trx) => {
      // Commits in id order, so the processor, which takes the oldest pending first, applies the events of
      // a file in log order whatever instance logged them.
      await dialectWork(trx).takeAppendTurn(trx);
      return eventLog.append(trx, events);
    });
  },

  async pending(db, limit, lane) {
    let query = db.selectFrom('events').selectAll().where('outcome', '=', 'pending');
    if (lane) {
      const work = dialectWork(db);
      const key = sql<string>`coalesce(file_id, ${NO_FILE_KEY})`;
      const inLane = work.keyInLane(key, lane.index, lane.of);
      // The lane is looked at first: a file of another lane is never probed.
      query = query.where(inLane ? sql<SqlBool>`CASE WHEN ${inLane} THEN ${work.keyLooksFree(key)} ELSE false END` : work.keyLooksFree(key));
    }
    const rows = await query.orderBy('id').limit(limit).execute();
    return rows.map(toLogged);
  },

  async finish(db, planned, nowMs, apply) {
    if (planned.length === 0) return { finished: [], heldBack: 0 };
    // Effects can be derived again from the log, so their commit need not wait for the disk.
    return dialectWork(db).transactionWithoutDiskWait(db, async (trx) => {
      const keys = new Set(planned.map(({ event }) => event.fileId ?? NO_FILE_KEY));
      const locked = await dialectWork(trx).lockKeys(trx, [...keys]);
      const lockedEvents = planned.filter(({ event }) => locked.has(event.fileId ?? NO_FILE_KEY));
      // A file's events after an earlier one still pending outside this step wait for a later step, which takes it first.
      const gaps = await earliestGaps(
        trx,
        lockedEvents.map(({ event }) => event),
      );
      const ours = lockedEvents.filter(({ event }) => event.id < (gaps.get(event.fileId ?? NO_FILE_KEY) ?? Infinity));
      const heldBack = lockedEvents.length - ours.length;
      if (ours.length === 0) return { finished: [], heldBack };
      // The claim writes the outcome too: most events finish alike (processed, no problem), so one
      // statement per distinct outcome, and no second pass over the rows.
      const groups = new Map<string, number[]>();
      for (const { event, outcome, problem } of ours) {
        const key = JSON.stringify([outcome, problem]);
        groups.set(key, [...(groups.get(key) ?? []), event.id]);
      }
      const finished: FinishedEvent[] = [];
      for (const [key, ids] of groups) {
        const [outcome, problem] = JSON.parse(key) as [FinishedEvent['outcome'], string | null];
        const claimed = await dialectOf(trx).updateReturning(
          trx,
          'events',
          (query) => query.where('id', 'in', ids).where('outcome', '=', 'pending'),
          { effects_ms: nowMs, outcome, problem: storableText(problem) },
          ['id'],
        );
        for (const row of claimed) finished.push({ id: Number(row.id), outcome, problem });
      }
      const claimedIds = new Set(finished.map((event) => event.id));
      await apply(
        trx,
        ours.flatMap(({ event }) => (claimedIds.has(event.id) ? [event] : [])).sort((a, b) => a.id - b.id),
      );
      return { finished: finished.sort((a, b) => a.id - b.id), heldBack };
    });
  },

  lanes: (db) => dialectWork(db).lanes,

  async list(db, filter) {
    let query = db.selectFrom('events').selectAll();
    if (!filter.newestFirst) query = query.where('id', '>', filter.after);
    else if (filter.after > 0) query = query.where('id', '<', filter.after);
    if (filter.fileId !== undefined) query = query.where('file_id', '=', storableText(filter.fileId));
    if (filter.kind !== undefined) query = query.where('kind', '=', storableText(filter.kind));
    if (filter.since !== undefined) query = query.where('received_at', '>=', filter.since);
    if (filter.outcomes !== undefined) query = query.where('outcome', 'in', [...filter.outcomes]);
    const rows = await query
      .orderBy('id', filter.newestFirst ? 'desc' : 'asc')
      .limit(filter.limit + 1)
      .execute();
    const shown = rows.slice(0, filter.limit).map(toLogged);
    return { items: shown, next: rows.length > filter.limit ? (shown.at(-1)?.id ?? null) : null };
  },

  async get(db, id) {
    const row = await db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toLogged(row);
  },

  async requeue(db, id, update) {
    const result = await db
      .updateTable('events')
      .set({ outcome: 'pending', file_id: storableText(update.fileId), user_id: storableText(update.userId), subject: storableText(update.subject) })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async refuseAgain(db, id, problem) {
    const result = await db
      .updateTable('events')
      .set({ outcome: 'refused', problem: storableText(problem) })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  async subjectFiles(db, subject, limit) {
    const rows = await db
      .selectFrom('events')
      .select('file_id')
      .distinct()
      .where('subject', '=', storableText(subject))
      .where('outcome', '<>', 'refused')
      .where('file_id', 'is not', null)
      .limit(limit)
      .execute();
    return rows.flatMap((row) => (row.file_id === null ? [] : [row.file_id]));
  },

  async subjectActor(db, fileId, subject, action) {
    const row = await db
      .selectFrom('events')
      .select('user_id')
      .where('subject', '=', storableText(subject))
      .where('file_id', '=', storableText(fileId))
      .where('action', '=', action)
      .where('outcome', '<>', 'refused')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return row?.user_id ?? undefined;
  },

  async figures(db, lagSample) {
    const counted = await db
      .selectFrom('events')
      .select(['outcome', (eb) => eb.fn.countAll<number>().as('count')])
      .where('outcome', 'in', ['pending', 'unprocessed', 'refused'])
      .groupBy('outcome')
      .execute();
    const counts = { pending: 0, unprocessed: 0, refused: 0 };
    for (const row of counted) counts[row.outcome as keyof typeof counts] = Number(row.count);
    const oldest = await db.selectFrom('events').select('received_ms').where('outcome', '=', 'pending').orderBy('id').limit(1).executeTakeFirst();
    const lags = await db
      .selectFrom('events')
      .select(['received_ms', 'effects_ms'])
      .where('effects_ms', 'is not', null)
      .where('received_ms', 'is not', null)
      .where('outcome', '<>', 'pending')
      .orderBy('id', 'desc')
      .limit(lagSample)
      .execute();
    return {
      counts,
      oldestPendingMs: oldest?.received_ms === null || oldest === undefined ? null : Number(oldest.received_ms),
      recentLagsMs: lags.map((row) => Math.max(0, Number(row.effects_ms) - Number(row.received_ms))),
    };
  },
};
