import { MysqlAdapter } from 'kysely';
import { mysqlBinaryCollation } from './server.js';
import type { Pool } from 'mysql2';
import { onDuplicateKeyForms } from '../statements/conflict-forms.js';
import type { StoreDialect } from '../dialect/dialect.js';
import { connectMysql } from './open.js';
import { isMysqlUrl } from './pool.js';
import { lockUpdateRead } from '../statements/update-forms.js';
// MySQL's feed ids and tailed sequences commit in order (migration 110's counter row; the append and tail
// turns), so it reads them as SQLite does.
import { feedEnd, readFeed } from '../change-feed/in-order-feed.js';
import { inTailOrder, tailAfter } from '../statements/in-order-tail.js';
import { bulkInsertStatement, insertNewStatement, upsertTail } from './bulk-insert.js';
import { withIndexesDeferred } from './deferred-indexes.js';
import { mysqlSql } from './dialect-sql.js';
import { mysqlDialectWork } from './dialect-work.js';
import { mysqlEventEffects } from './event-effects.js';
import { withFeedAsReload } from './feed-as-reload.js';
import { afterRestore, backupTables } from './restore.js';
import { lockDueSeatTasks } from './seat-task-claim.js';
import { keepStatistics, refreshStatistics } from './statistics.js';
import { openMysqlSnapshot } from './store-snapshot.js';
import { lockDirectoryWrites } from './write-lock.js';

/** mysql2's pool keeps its counts in fields of its own. */
interface PoolInternals {
  config: { connectionLimit?: number };
  _allConnections?: { length: number };
  _freeConnections?: { length: number };
  _connectionQueue?: { length: number };
}

/** MySQL and MariaDB (mysql2): a pool, several instances on one database. */
export const mysqlDialect: StoreDialect = {
  name: 'mysql',
  owns: (adapter) => adapter instanceof MysqlAdapter,
  opens: isMysqlUrl,
  connect: connectMysql,
  openReadSide: () => undefined,
  migrationSetting: async (db) => ({ binaryCollation: await mysqlBinaryCollation(db) }),
  holdServeLock: () => () => {},
  placeholders: 'positional',
  sql: mysqlSql,
  preparedReads: () => undefined,
  work: mysqlDialectWork,
  blocksEventLoop: false,
  lockDueSeatTasks,
  lockDirectoryWrites,
  bulkInsertStatement,
  updateReturning: lockUpdateRead,
  conflicts: onDuplicateKeyForms,
  conflictSyntax: 'on-duplicate-key',
  upsertTail,
  insertNewStatement,
  bulkLoad: async () => false,
  withIndexesDeferred,
  refreshStatistics,
  keepStatistics,
  advanceFileVersions: (db, rows) => mysqlEventEffects.advanceFileVersions(db, rows),
  // REPEATABLE READ: the transaction reads the snapshot its first read takes.
  inSnapshot: (db, work) => db.transaction().setIsolationLevel('repeatable read').execute(work),
  feedEnd,
  readFeed,
  withFeedAsReload,
  // No notifications: other instances see directory writes at their next poll.
  listenForDirectoryChanges: () => undefined,
  inTailOrder,
  tailAfter,
  openSnapshot: (opened) => openMysqlSnapshot(opened.db),
  backupTables,
  afterRestore,
  poolSizes: (opened) => {
    const pool = (opened.mysqlPool as (Pool & PoolInternals) | undefined) ?? undefined;
    if (!pool) return undefined;
    const total = pool._allConnections?.length ?? 0;
    return { max: pool.config.connectionLimit ?? 10, total, idle: pool._freeConnections?.length ?? 0, waiting: pool._connectionQueue?.length ?? 0 };
  },
};
