import { sql, type Kysely, type Selectable, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { dialectOf } from '../dialect/dialect.js';
import { insertRows, storableText, type RowTable } from '../statements/row-insert.js';
import type { Database, Db } from '../schema/schema.js';
import { inTailOrder, readTailPage, type TailPosition } from '../statements/tail-order.js';
import { inTailTurn } from '../statements/tail-turn.js';
import { dialectWork } from '../dialect/dialect-work-for.js';
import { AUDIT_INDEXES, auditIndex } from './audit-index.js';
import { yieldToEventLoop } from '../../shared/event-loop.js';

/** One entry of the audit log as the domain writes and reads it. */
export interface AuditRecord {
  /** Interface time, `YYYY-MM-DDThh:mm:ssZ`. */
  at: string;
  kind: string;
  actorId: string | null;
  credential: string;
  fileId: string | null;
  action: string;
  /** The permissions granted by an access decision (empty: none); null for anything else. */
  permissions: readonly string[] | null;
  details: Record<string, unknown> | null;
}

export interface StoredAuditRecord extends Omit<AuditRecord, 'permissions'> {
  id: number;
  permissions: string[] | null;
}

export interface AuditFilter {
  since?: string;
  until?: string;
  kind?: string;
  actorId?: string;
  fileId?: string;
  /** The position after which the page starts. */
  after?: TailPosition;
  limit: number;
}

type AuditRow = Omit<Selectable<Database['audit_log']>, 'id'>;

const AUDIT_TABLE: RowTable<AuditRow> = {
  table: 'audit_log',
  columns: { at: 'text', kind: 'text', actor_id: 'text', credential: 'text', file_id: 'text', action: 'text', permissions: 'text', details: 'text' },
};

/** Rows one insert statement carries at most. */
const INSERT_CHUNK = 500;

/**
 * Rows one SQLite statement of the request path's batches carries: its driver is synchronous, so a
 * chunk holds the event loop while it runs (about 1 ms for 100 rows with the three indexes, against
 * 10-25 ms for 500 in one statement synced at FULL); the event loop runs what waits between chunks.
 */
const SQLITE_BATCH_CHUNK = 100;

/** The audit log: appended to and read, never updated; rows leave only through retention. */
export const auditLog = {
  /**
   * Appends. Inside a transaction (a directory change's entries) in the tail turn, held to its commit:
   * those entries become visible in id order. The request path's batches go through `appendBuffered`.
   */
  async append(db: Db, records: readonly AuditRecord[]): Promise<void> {
    if (records.length === 0) return;
    const write = async (into: Db) => {
      for (let start = 0; start < records.length; start += INSERT_CHUNK) {
        await insertRows(into, AUDIT_TABLE, records.slice(start, start + INSERT_CHUNK).map(toRow));
      }
    };
    if (db.isTransaction) await inTailTurn(db, write);
    else await write(db);
  },

  /**
   * Appends the request path's buffered entries (src/audit/audit-trail.ts), outside any transaction and
   * without the tail turn (see docs/scaling.md). Those
   * entries may be lost in a crash anyway (docs/operations.md, "Audit trail"), so on SQLite they are
   * committed without waiting for the disk (synchronous=NORMAL: a power cut may lose the last commits, a
   * killed process none), in chunks with the event loop's other work in between; `written` is told each
   * chunk's rows once committed (a failure leaves the chunks before it written, then throws). PostgreSQL:
   * one statement, as `append`.
   */
  async appendBuffered(db: Kysely<Database>, records: readonly AuditRecord[], written: (rows: number) => void): Promise<void> {
    if (!dialectOf(db).blocksEventLoop) {
      await auditLog.append(db, records);
      written(records.length);
      return;
    }
    for (let start = 0; start < records.length; start += SQLITE_BATCH_CHUNK) {
      if (start > 0) await yieldToEventLoop();
      const chunk = records.slice(start, start + SQLITE_BATCH_CHUNK);
      await dialectWork(db).writeWithoutDiskWait(db, (connection) => insertRows(connection, AUDIT_TABLE, chunk.map(toRow)));
      written(chunk.length);
    }
  },

  /**
   * Entries oldest first (in tail order, src/store/statements/tail-order.ts), by the filter; `next` is the
   * position to continue after, or null on the last page. By file or actor: the rows up to the audit
   * index's mark through its side table, then the rows after the mark by a scan (src/store/audit/audit-index.ts).
   */
  async list(db: Db, filter: AuditFilter): Promise<{ items: StoredAuditRecord[]; next: TailPosition | null }> {
    const { shown, next } = await readTailPage(
      () => readInTailOrder(db, filter, filter.limit + 1),
      filter.limit,
      (row) => row.id,
    );
    return { items: shown.map(fromRow), next };
  },

  /** Entries before `before` (at most about `limit`, oldest first), removed; returns how many. The row of the audit index's mark stays. */
  async pruneBefore(db: Db, before: string, limit: number): Promise<number> {
    const rows = await db
      .selectFrom('audit_log')
      .select(['id', 'file_id', 'actor_id'])
      .where('at', '<', before)
      .where('id', '<>', await auditIndex.mark(db))
      .orderBy('at')
      .orderBy('id')
      .limit(limit)
      .execute();
    if (rows.length === 0) return 0;
    const removed = await db
      .deleteFrom('audit_log')
      .where(
        'id',
        'in',
        rows.map((row) => row.id),
      )
      .executeTakeFirst();
    // After the rows: pairs left by a crash in between point at nothing and are never listed.
    await auditIndex.forget(
      db,
      rows.map((row) => ({ ...row, id: Number(row.id) })),
    );
    return Number(removed.numDeletedRows);
  },

  async countBefore(db: Db, before: string): Promise<number> {
    const row = await db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('at', '<', before)
      .where('id', '<>', await auditIndex.mark(db))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },
};

function toRow(record: AuditRecord): AuditRow {
  return {
    at: record.at,
    kind: record.kind,
    actor_id: storableText(record.actorId),
    credential: record.credential,
    file_id: storableText(record.fileId),
    action: storableText(record.action),
    permissions: record.permissions === null ? null : record.permissions.join(','),
    details: record.details === null ? null : storableText(JSON.stringify(record.details)),
  };
}

function fromRow(row: Selectable<Database['audit_log']>): StoredAuditRecord {
  return {
    id: Number(row.id),
    at: row.at,
    kind: row.kind,
    actorId: row.actor_id,
    credential: row.credential,
    fileId: row.file_id,
    action: row.action,
    permissions: row.permissions === null ? null : row.permissions === '' ? [] : row.permissions.split(','),
    details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
  };
}

/** Up to `count` rows matching `filter` after `filter.after`, in tail order. */
async function readInTailOrder(db: Db, filter: AuditFilter, count: number) {
  const by = filter.fileId !== undefined ? AUDIT_INDEXES.file : filter.actorId !== undefined ? AUDIT_INDEXES.actor : undefined;
  if (by === undefined) {
    return inTailOrder(db, filtered(db.selectFrom('audit_log').selectAll('audit_log'), filter), 'audit_log', 'id', filter.after)
      .limit(count)
      .execute();
  }
  const value = by.key === 'file_id' ? filter.fileId! : filter.actorId!;
  const mark = await auditIndex.markPosition(db);
  const afterMark = dialectOf(db).tailAfter('audit_log', 'id', mark);
  const indexed = await inTailOrder(
    db,
    filtered(
      db
        .selectFrom('audit_log')
        // The two side tables have the same shape: (key, id).
        .innerJoin(`${by.table} as indexed` as 'audit_file_ids as indexed', 'indexed.id', 'audit_log.id')
        .selectAll('audit_log')
        .where(sql<SqlBool>`${sql.ref(`indexed.${by.key}`)} = ${value}`)
        .where((eb) => eb.not(afterMark)),
      filter,
    ),
    // By the side table's id where the order is the id's: its key (key, id) gives the rows in order, no sort.
    dialectOf(db).name === 'postgres' ? 'audit_log' : 'indexed',
    'id',
    filter.after,
  )
    .limit(count)
    .execute();
  if (indexed.length >= count) return indexed;
  const tail = await inTailOrder(db, filtered(db.selectFrom('audit_log').selectAll('audit_log').where(afterMark), filter), 'audit_log', 'id', filter.after)
    .limit(count - indexed.length)
    .execute();
  return [...indexed, ...tail];
}

/** The filter's conditions on `audit_log`'s columns. */
function filtered<Q extends SelectQueryBuilder<Database, 'audit_log' | never, object>>(query: Q, filter: AuditFilter): Q {
  let where = query as SelectQueryBuilder<Database, 'audit_log', object>;
  if (filter.since !== undefined) where = where.where('audit_log.at', '>=', filter.since);
  if (filter.until !== undefined) where = where.where('audit_log.at', '<', filter.until);
  if (filter.kind !== undefined) where = where.where('audit_log.kind', '=', filter.kind);
  if (filter.actorId !== undefined) where = where.where('audit_log.actor_id', '=', filter.actorId);
  if (filter.fileId !== undefined) where = where.where('audit_log.file_id', '=', filter.fileId);
  return where as unknown as Q;
}
