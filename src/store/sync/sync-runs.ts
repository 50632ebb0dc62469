import { dialectOf } from '../dialect/dialect.js';
import type { SyncRunRow } from '../../sync/sync-run-shape.js';
import type { Kysely, Selectable } from 'kysely';
import { dialectWork } from '../dialect/dialect-work-for.js';
import type { Database, Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';
import type { SyncTables } from '../schema/tables/sync.js';

export type { SyncRunRow } from '../../sync/sync-run-shape.js';

/** What a finished run writes. */
export interface SyncRunEnd {
  status: string;
  detail?: string | null;
  durationMs: number;
  counts: SyncRunRow['counts'];
  changes: SyncRunRow['changes'];
  skipped: SyncRunRow['skipped'];
  errors: string[];
}

/** A run as it starts. */
export interface SyncRunStart {
  source: string;
  mode: string;
  dryRun: boolean;
  detail: string | null;
  startedAt: string;
}

/** The record of sync runs and the sources' bookkeeping between runs. */
export interface SyncRunStore {
  /**
   * Whether this store writes inside a transaction that commits its records together (a directory
   * write turn's): a run's `running` row would never be seen before its end, nor kept without it.
   */
  readonly insideTransaction: boolean;
  /** Records a run that starts now; returns its id. */
  start(run: SyncRunStart): Promise<number>;
  /** Records how the run ended. */
  finish(id: number, end: SyncRunEnd): Promise<void>;
  /** Records a run that has ended, in one write; returns its id. */
  record(run: SyncRunStart, end: SyncRunEnd): Promise<number>;
  /** Runs newest first, after the cursor position (a run id), optionally of one source. */
  list(query: { source?: string; before?: number; limit: number }): Promise<SyncRunRow[]>;
  /** A source's newest finished run that was not a dry run, and its newest one that did not fail (ok or unchanged). */
  latest(source: string): Promise<{ finished: SyncRunRow | undefined; good: SyncRunRow | undefined }>;
  /** A source's stored value for `key`, or undefined. */
  getState(source: string, key: string): Promise<string | undefined>;
  /** Stores a source's value for `key`. */
  setState(source: string, key: string, value: string): Promise<void>;
}

/**
 * A run's record is bookkeeping beside the change it records, which commits durably on its own: written
 * without waiting for the disk, so a run costs one sync (its change's), not three. A power cut may lose
 * the last records, never a change.
 */
function bookkeeping<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : dialectWork(db).transactionWithoutDiskWait(db as Kysely<Database>, work);
}

export function sqlSyncRuns(db: Db): SyncRunStore {
  return {
    insideTransaction: db.isTransaction,
    async start(run) {
      const row = await bookkeeping(db, (trx) => trx.insertInto('sync_runs').values(startColumns(run)).returning('id').executeTakeFirstOrThrow());
      return Number(row.id);
    },
    async finish(id, end) {
      await bookkeeping(db, (trx) => trx.updateTable('sync_runs').set(endColumns(end)).where('id', '=', id).execute());
    },
    async record(run, end) {
      const values = { ...startColumns(run), detail: run.detail, ...endColumns(end) };
      const [row] = await bookkeeping(db, (trx) =>
        RECORD_RUN.run<{ id: number | string }>(
          trx,
          RECORD_COLUMNS.map((column) => values[column]),
        ),
      );
      return Number(row!.id);
    },
    async list(query) {
      let select = db.selectFrom('sync_runs').selectAll().orderBy('id', 'desc').limit(query.limit);
      if (query.source !== undefined) select = select.where('source', '=', query.source);
      if (query.before !== undefined) select = select.where('id', '<', query.before);
      return (await select.execute()).map(runOf);
    },
    async latest(source) {
      const newest = db.selectFrom('sync_runs').selectAll().where('source', '=', source).where('dry_run', '=', 0).orderBy('id', 'desc').limit(1);
      const [finished, good] = await Promise.all([
        newest.where('status', '<>', 'running').executeTakeFirst(),
        newest.where('status', 'in', ['ok', 'unchanged']).executeTakeFirst(),
      ]);
      return { finished: finished && runOf(finished), good: good && runOf(good) };
    },
    async getState(source, key) {
      const row = await db.selectFrom('sync_state').select('value').where('source', '=', source).where('key', '=', key).executeTakeFirst();
      return row?.value;
    },
    async setState(source, key, value) {
      await dialectOf(db).conflicts.insertOrUpdate(db.insertInto('sync_state').values({ source, key, value }), ['source', 'key'], ['value']).execute();
    },
  };
}

function startColumns(run: SyncRunStart) {
  return { source: run.source, mode: run.mode, dry_run: run.dryRun ? 1 : 0, status: 'running', detail: run.detail, started_at: run.startedAt };
}

function endColumns(end: SyncRunEnd) {
  return {
    status: end.status,
    ...(end.detail === undefined ? {} : { detail: end.detail }),
    duration_ms: Math.round(end.durationMs),
    ...end.counts,
    changes: JSON.stringify(end.changes),
    skipped_entries: JSON.stringify(end.skipped),
    errors: JSON.stringify(end.errors),
  };
}

const RECORD_COLUMNS = [
  'source',
  'mode',
  'dry_run',
  'status',
  'detail',
  'started_at',
  'duration_ms',
  'created',
  'updated',
  'removed',
  'deactivated',
  'reactivated',
  'skipped',
  'changes',
  'skipped_entries',
  'errors',
] as const;

/** A finished run in one statement, built once (a SCIM write records one per request). */
const RECORD_RUN = new Statement(
  `INSERT INTO sync_runs (${RECORD_COLUMNS.map((column) => `"${column}"`).join(', ')}) VALUES (${RECORD_COLUMNS.map((_, index) => `$${index + 1}`).join(', ')}) RETURNING id`,
);

function runOf(row: Selectable<SyncTables['sync_runs']>): SyncRunRow {
  return {
    id: Number(row.id),
    source: row.source,
    mode: row.mode,
    dryRun: row.dry_run !== 0,
    status: row.status,
    detail: row.detail,
    startedAt: row.started_at,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    counts: { created: row.created, updated: row.updated, removed: row.removed, deactivated: row.deactivated, reactivated: row.reactivated, skipped: row.skipped },
    changes: JSON.parse(row.changes) as SyncRunRow['changes'],
    skipped: JSON.parse(row.skipped_entries) as SyncRunRow['skipped'],
    errors: JSON.parse(row.errors) as string[],
  };
}
