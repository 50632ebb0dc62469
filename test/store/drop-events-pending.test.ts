import {
  CompiledQuery,
  createQueryId,
  sql,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';
import { expect, it } from 'vitest';
import type { DialectName } from '../../src/store/dialect/dialect.js';
import { eventLog } from '../../src/store/events/event-log.js';
import type { Database } from '../../src/store/schema/schema.js';
import { serially } from '../helpers/serially.js';
import { storeBefore } from '../helpers/store-before.js';
import { describeEachStore } from '../helpers/stores.js';

const DROP = '205-drop-events-pending';
const PROCESSED = 3000;
/** Where the few pending events sit among the processed ones (1-based positions in the log). */
const PENDING_AT = [5, 1200, 1201, 2999, 3003];

/** The indexes of `events`, by name. */
async function eventIndexes(db: Kysely<Database>, dialect: DialectName): Promise<string[]> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' ORDER BY name`.execute(db);
    return rows.map((row) => row.name);
  }
  if (dialect === 'mysql') {
    const { rows } = await sql<{
      name: string;
    }>`SELECT DISTINCT index_name AS name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'events' ORDER BY 1`.execute(db);
    return rows.map((row) => row.name);
  }
  return serially(db, async (trx) => {
    const { rows } = await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'events' ORDER BY 1`.execute(trx);
    return rows.map((row) => row.name);
  });
}

/** The statements a call makes on the store, as the store receives them (for EXPLAIN). */
class Statements implements KyselyPlugin {
  readonly nodes: RootOperationNode[] = [];
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    this.nodes.push(node);
    return node;
  }
  transformResult = async ({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => result;
}

/** The plan of a statement `watched` made: SQLite's EXPLAIN QUERY PLAN details or PostgreSQL's EXPLAIN lines. */
async function planOf(db: Kysely<Database>, dialect: DialectName, node: RootOperationNode): Promise<string> {
  const query = db.getExecutor().compileQuery(node, createQueryId());
  if (dialect === 'sqlite') {
    const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${query.sql}`, [...query.parameters]));
    return rows.map((row) => row.detail).join('\n');
  }
  return serially(db, async (trx) => {
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]));
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** A log of mostly processed events with a few pending among them, as a store has after a while. */
async function logEvents(db: Kysely<Database>): Promise<void> {
  const pendingAt = new Set(PENDING_AT);
  const rows = Array.from({ length: PROCESSED + PENDING_AT.length }, (_, index) => {
    const pending = pendingAt.has(index + 1);
    return {
      delivery_key: `key-${index + 1}`,
      kind: 'Comment',
      action: 'create',
      file_id: `file-${index % 50}`,
      user_id: 'zhang',
      credential: 'token',
      sender_id: 'zhang',
      outcome: pending ? ('pending' as const) : ('processed' as const),
      problem: null,
      subject: null,
      received_at: '2026-11-26T08:00:00.000Z',
      received_ms: 1_795_680_000_000 + index,
      effects_ms: pending ? null : 1_795_680_000_020 + index,
      body: '{}',
    };
  });
  for (let from = 0; from < rows.length; from += 500)
    await db
      .insertInto('events')
      .values(rows.slice(from, from + 500))
      .execute();
}

/**
 * Migration 205 drops the partial index `events_pending` on SQLite, where `events_by_outcome` serves the
 * processor's queries; PostgreSQL keeps it (its planner may otherwise walk the log on stale statistics) and
 * MySQL never had it. On every store the pending events are still found through an index, oldest first,
 * and processed.
 */
describeEachStore('migration 205 (events_pending dropped on SQLite)', (_store, dialect) => {
  it('leaves the pending events listed oldest first through an index, and processed', async () => {
    // The version before: every migration but 205, and a log with a few pending events among many processed.
    const store = await storeBefore(dialect, DROP, { laterToo: true });
    try {
      await logEvents(store.db);
      expect((await eventIndexes(store.db, dialect)).includes('events_pending')).toBe(dialect !== 'mysql');

      expect(await store.migrateAll()).toEqual([DROP]);
      const db = store.db;
      const indexes = await eventIndexes(db, dialect);
      expect(indexes).toContain('events_by_outcome');
      expect(indexes.includes('events_pending')).toBe(dialect === 'postgres');
      // PostgreSQL plans from statistics: those of this log, as autovacuum would have them.
      if (dialect === 'postgres') await sql`ANALYZE events`.execute(db);

      const statements = new Statements();
      const watched = db.withPlugin(statements);
      const pending = await eventLog.pending(watched, 10);
      expect(pending.map((event) => event.id)).toEqual(PENDING_AT);
      expect(pending.every((event) => event.outcome === 'pending')).toBe(true);
      expect((await eventLog.figures(db, 1)).counts.pending).toBe(PENDING_AT.length);

      if (dialect !== 'mysql') {
        const plan = await planOf(db, dialect, statements.nodes.at(-1)!);
        // Through an index, not by reading the log: SQLite says SEARCH … USING INDEX, PostgreSQL Index Scan.
        expect(plan).toMatch(dialect === 'sqlite' ? /events_by_outcome/ : /events_pending|events_by_outcome/);
        expect(plan).not.toMatch(/\bSCAN events\b|Seq Scan/);
      }
      // PostgreSQL's processor takes the pending events of its lane of files: through the same index.
      const lanes = eventLog.lanes(db);
      if (lanes > 1) {
        const inLanes = [];
        for (let index = 0; index < lanes; index++) inLanes.push(...(await eventLog.pending(watched, 10, { index, of: lanes })));
        expect(inLanes.map((event) => event.id).sort((a, b) => a - b)).toEqual(PENDING_AT);
        if (dialect !== 'mysql') expect(await planOf(db, dialect, statements.nodes.at(-1)!)).toMatch(/events_pending|events_by_outcome/);
      }

      statements.nodes.length = 0;
      const planned = pending.map((event) => ({ event, outcome: 'processed' as const, problem: null }));
      const applied: number[][] = [];
      const { finished, heldBack } = await eventLog.finish(watched, planned, 1_795_680_010_000, async (_trx, claimed) => {
        applied.push(claimed.map((event) => event.id));
      });
      expect(finished.map((event) => [event.id, event.outcome])).toEqual(PENDING_AT.map((id) => [id, 'processed']));
      expect(heldBack).toBe(0);
      expect(applied).toEqual([PENDING_AT]);
      expect(await eventLog.pending(db, 10)).toEqual([]);
      expect((await eventLog.figures(db, 1)).counts.pending).toBe(0);
      expect((await eventLog.get(db, PENDING_AT[1]!))?.effectsMs).toBe(1_795_680_010_000);

      if (dialect !== 'mysql') {
        // The claim finds its events by id (the primary key, or events_by_outcome by outcome and id).
        const claim = statements.nodes.find((node) => node.kind === 'UpdateQueryNode');
        expect(claim).toBeDefined();
        const plan = await planOf(db, dialect, claim!);
        expect(plan).toMatch(/events_pending|events_by_outcome|events_pkey|INTEGER PRIMARY KEY|rowid/);
        expect(plan).not.toMatch(/\bSCAN events\b|Seq Scan/);
        // The step's look for an earlier pending event of its files reads the pending events alone.
        const look = statements.nodes.find((node) => node.kind === 'SelectQueryNode');
        expect(look).toBeDefined();
        const lookPlan = await planOf(db, dialect, look!);
        expect(lookPlan).toMatch(/events_pending|events_by_outcome/);
        expect(lookPlan).not.toMatch(/\bSCAN events\b|Seq Scan|events_by_file/);
      }
    } finally {
      await store.close();
    }
  });
});
