import type pg from 'pg';
import { PostgresAdapter, sql } from 'kysely';
import { onConflictSkipReturning, onConflictUpsert } from '../statements/bulk-table.js';
import { onConflictForms } from '../statements/conflict-forms.js';
import type { StoreDialect } from '../dialect/dialect.js';
import { connectPostgres } from './open.js';
import { updateThenReturn } from '../statements/update-forms.js';
import { bulkInsertStatement } from './bulk-insert.js';
import { feedEnd, inSnapshot, readFeed } from './change-feed.js';
import { copyRows } from './copy-rows.js';
import { withIndexesDeferred } from './deferred-indexes.js';
import { postgresSql } from './dialect-sql.js';
import { postgresDialectWork } from './dialect-work.js';
import { postgresEventEffects } from './event-effects.js';
import { withFeedAsReload } from './feed-as-reload.js';
import { listenForDirectoryChanges } from './feed-listener.js';
import { PostgresPreparedReads } from './prepared-reads.js';
import { advanceSequences, backupTables } from './restore.js';
import { lockDueSeatTasks } from './seat-task-claim.js';
import { keepStatistics, refreshStatistics } from './statistics.js';
import { openPostgresSnapshot } from './store-snapshot.js';
import { inTailOrder, tailAfter } from './tail-order.js';
import { lockDirectoryWrites } from './write-lock.js';

/** Rows from which a plain insert is a COPY (below, its extra round trip is not worth it). */
const COPY_ABOVE = 1_000;

const poolOf = (opened: { pgPool?: unknown }) => opened.pgPool as pg.Pool | undefined;

/** PostgreSQL (node-postgres): a pool, several instances on one database. */
export const postgresDialect: StoreDialect = {
  name: 'postgres',
  owns: (adapter) => adapter instanceof PostgresAdapter,
  opens: (url) => /^postgres(ql)?:\/\//.test(url),
  connect: connectPostgres,
  openReadSide: () => undefined,
  // Kysely looks its bookkeeping tables up by name across every schema: pin them to the schema we work in,
  // or a second collab-host schema in the same database would be taken for ours.
  migrationSetting: async (db) => ({ schema: (await sql<{ schema: string }>`SELECT current_schema() AS schema`.execute(db)).rows[0]?.schema ?? 'public' }),
  holdServeLock: () => () => {},
  placeholders: 'numbered',
  sql: postgresSql,
  preparedReads: (opened) => {
    const pool = poolOf(opened);
    return pool ? new PostgresPreparedReads(pool) : undefined;
  },
  work: postgresDialectWork,
  blocksEventLoop: false,
  lockDueSeatTasks,
  lockDirectoryWrites,
  bulkInsertStatement,
  updateReturning: updateThenReturn,
  conflicts: onConflictForms,
  conflictSyntax: 'on-conflict',
  upsertTail: onConflictUpsert,
  insertNewStatement: (spec, rows, returning) => bulkInsertStatement(spec, rows, onConflictSkipReturning(returning)),
  bulkLoad: async (db, spec, rows) => rows.length >= COPY_ABOVE && copyRows(db, spec, rows),
  withIndexesDeferred,
  refreshStatistics,
  keepStatistics,
  advanceFileVersions: (db, rows) => postgresEventEffects.advanceFileVersions(db, rows),
  inSnapshot,
  feedEnd,
  readFeed,
  withFeedAsReload,
  listenForDirectoryChanges: (opened, wake, onError) => {
    const pool = poolOf(opened);
    return pool ? listenForDirectoryChanges(pool, wake, onError) : undefined;
  },
  inTailOrder,
  tailAfter,
  async openSnapshot(opened) {
    const pool = poolOf(opened);
    if (!pool) throw new Error('a PostgreSQL store opened without its pool');
    return openPostgresSnapshot(pool);
  },
  backupTables,
  afterRestore: advanceSequences,
  poolSizes: (opened) => {
    const pool = poolOf(opened);
    return pool ? { max: pool.options.max ?? 10, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : undefined;
  },
};
