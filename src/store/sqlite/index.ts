import type SQLite from 'better-sqlite3';
import { SqliteAdapter } from 'kysely';
import { onConflictSkipReturning, onConflictUpsert } from '../statements/bulk-table.js';
import { onConflictForms } from '../statements/conflict-forms.js';
import type { StoreDialect } from '../dialect/dialect.js';
import { connectSqlite, openSqliteReadSide } from './open.js';
import { holdServeLock } from './serve-lock.js';
import { updateThenReturn } from '../statements/update-forms.js';
import { bulkInsertStatement } from './bulk-insert.js';
import { feedEnd, readFeed } from '../change-feed/in-order-feed.js';
import { withIndexesDeferred } from './deferred-indexes.js';
import { sqliteSql } from './dialect-sql.js';
import { sqliteDialectWork } from './dialect-work.js';
import { sqliteEventEffects } from './event-effects.js';
import { withFeedAsReload } from './feed-as-reload.js';
import { SqlitePreparedReads } from './prepared-reads.js';
import { backupTables } from './restore.js';
import { lockDueSeatTasks } from './seat-task-claim.js';
import { keepStatistics, refreshStatistics } from './statistics.js';
import { openSqliteSnapshot } from './store-snapshot.js';
import { inTailOrder, tailAfter } from '../statements/in-order-tail.js';
import { lockDirectoryWrites } from './write-lock.js';
import { SnapshotUnsupportedError } from '../backup/store-snapshot-shape.js';

/** SQLite (better-sqlite3): one file, one writer, a synchronous driver. */
export const sqliteDialect: StoreDialect = {
  name: 'sqlite',
  owns: (adapter) => adapter instanceof SqliteAdapter,
  opens: (url) => url.startsWith('sqlite:') && url.length > 'sqlite:'.length,
  connect: (url) => connectSqlite(url),
  openReadSide: openSqliteReadSide,
  migrationSetting: async () => ({}),
  holdServeLock: (url) => {
    const path = url.slice('sqlite:'.length);
    return path === ':memory:' ? () => {} : holdServeLock(path);
  },
  placeholders: 'positional',
  sql: sqliteSql,
  preparedReads: (opened) => (opened.sqliteReader ? new SqlitePreparedReads(opened.sqliteReader as SQLite.Database) : undefined),
  work: sqliteDialectWork,
  blocksEventLoop: true,
  lockDueSeatTasks,
  lockDirectoryWrites,
  bulkInsertStatement,
  updateReturning: updateThenReturn,
  conflicts: onConflictForms,
  conflictSyntax: 'on-conflict',
  upsertTail: onConflictUpsert,
  insertNewStatement: (spec, rows, returning) => bulkInsertStatement(spec, rows, onConflictSkipReturning(returning)),
  bulkLoad: async () => false,
  withIndexesDeferred,
  refreshStatistics,
  keepStatistics,
  advanceFileVersions: (db, rows) => sqliteEventEffects.advanceFileVersions(db, rows),
  // A transaction reads one state: SQLite has one writer.
  inSnapshot: (db, work) => db.transaction().execute(work),
  feedEnd,
  readFeed,
  withFeedAsReload,
  listenForDirectoryChanges: () => undefined,
  inTailOrder,
  tailAfter,
  async openSnapshot(_opened, url) {
    const path = url.slice('sqlite:'.length);
    if (path === ':memory:') throw new SnapshotUnsupportedError('an in-memory SQLite store (sqlite::memory:) cannot be backed up from another process');
    return openSqliteSnapshot(path);
  },
  backupTables,
  afterRestore: async () => {},
  poolSizes: () => undefined,
};
