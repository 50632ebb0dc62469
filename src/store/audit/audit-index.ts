import type { Kysely } from 'kysely';
import { dialectOf } from '../dialect/dialect.js';
import { bulkInsert, type BulkTable } from '../statements/bulk-insert.js';
import type { Database, Db } from '../schema/schema.js';
import { inTailOrder, settled, type TailPosition } from '../statements/tail-order.js';
import { dialectWork } from '../dialect/dialect-work-for.js';
import { sortedInSlices } from '../../shared/sliced-sort.js';
import { yieldToEventLoop } from '../../shared/event-loop.js';

/**
 * The audit log's listings by file and by actor (migration 190). Each access decision is a row of
 * `audit_log`; indexing it by file and by actor as it is written cost a random-key B-tree entry each, most
 * of a document open's CPU on SQLite. Instead, `indexPending` writes the (key, id) pairs of the rows after
 * the mark to `audit_file_ids` and `audit_actor_ids` in large sorted batches (a leaf page is written once
 * per batch, not once per row), then moves the mark. A listing reads the pairs up to the mark and scans the
 * rows after it (src/store/audit/audit-log.ts): the same rows, in the same order, before and after a batch.
 *
 * The mark is the id of the last row indexed, as a tail position (src/store/statements/tail-order.ts): on
 * PostgreSQL it stands for (that row's tail_xid, id), and a batch takes only rows of transactions that no
 * longer run, so a row committing later always comes after it. Retention never removes the mark's row.
 */

/** The side tables and the column each is keyed by. */
export const AUDIT_INDEXES = { file: { table: 'audit_file_ids', key: 'file_id' }, actor: { table: 'audit_actor_ids', key: 'actor_id' } } as const;

/** Each side table as written in bulk: its key and id, the pair a unique key (a repeated pair is skipped). */
const SIDE_TABLES = Object.values(AUDIT_INDEXES).map(({ table, key }) => ({
  key,
  spec: { table, columns: [key, 'id'], pgTypes: ['text', 'bigint'], conflictKey: [key, 'id'] } satisfies BulkTable,
}));

/**
 * Pairs one statement writes: on SQLite a statement holds the event loop (about 10 ms for 1,000 on the
 * bench store, whose side tables hold millions of pairs), and such stalls set the p99 of the requests
 * waiting behind them (bench/README.md, 2026-11-27 23:40).
 */
const CHUNK = 250;

/**
 * Pairs sorted at once: a pass sorts its pairs in runs of this many (a few ms each) with the event
 * loop's other work between them, then merges them as it writes; sorting a pass of 65,000 rows' pairs at
 * once held the loop for about 100 ms on the bench store.
 */
const SORT_RUN = 8192;

/** Rows one read of a pass takes: on SQLite a read holds the event loop too (about 10 ms for 10,000, 2 ms for 2,000). */
const READ_PAGE = 2_000;

/** What one batch did. */
export interface IndexedBatch {
  /** Rows indexed (their pairs written, the mark moved past them). */
  rows: number;
  /** Whether rows were left after the batch's `limit`. */
  more: boolean;
}

export const auditIndex = {
  /** The id up to which (in tail order) every row is in both side tables; 0: none. */
  async mark(db: Db): Promise<number> {
    const row = await db.selectFrom('audit_index_mark').select('indexed_through').where('id', '=', 1).executeTakeFirst();
    return Number(row?.indexed_through ?? 0);
  },

  /** The mark as a tail position (PostgreSQL takes the transaction id of its row). */
  async markPosition(db: Db): Promise<TailPosition> {
    return { seq: await auditIndex.mark(db), xid: null };
  },

  /**
   * Indexes up to `limit` rows after the mark, sorted, in statements of `CHUNK` pairs with the event loop's
   * other work between them, then moves the mark past them. Safe beside another instance doing the same
   * (PostgreSQL): pairs already there are skipped, and the mark moves only from where this batch started.
   */
  async indexPending(db: Kysely<Database>, limit: number): Promise<IndexedBatch> {
    const from = await auditIndex.markPosition(db);
    const { rows, more } = await readSettled(db, from, limit);
    if (rows.length === 0) return { rows: 0, more: false };
    for (const { key, spec } of SIDE_TABLES) {
      // The statements' rows themselves, `[key, id]`: no object per pair (a pass takes up to 100,000 rows).
      const pairs: Array<[string, number]> = [];
      for (const row of rows) {
        const value = row[key];
        if (value !== null) pairs.push([value, Number(row.id)]);
      }
      await writeSorted(
        db,
        spec,
        sortedInSlices(pairs, (a, b) => compare(a[0], b[0]) || a[1] - b[1], { run: SORT_RUN, chunk: CHUNK, pause: yieldToEventLoop }),
      );
    }
    const through = Number(rows.at(-1)!.id);
    await db.updateTable('audit_index_mark').set({ indexed_through: through }).where('id', '=', 1).where('indexed_through', '=', from.seq).execute();
    return { rows: rows.length, more };
  },

  /** Removes the pairs of rows leaving the log (retention). */
  async forget(db: Db, rows: ReadonlyArray<{ id: number; file_id: string | null; actor_id: string | null }>): Promise<void> {
    for (const { table, key } of Object.values(AUDIT_INDEXES)) {
      const leaving = rows.filter((row) => row[key] !== null);
      if (leaving.length === 0) continue;
      // The two side tables have the same shape: (key, id).
      await db
        .deleteFrom(table as 'audit_file_ids')
        .where((eb) =>
          eb(
            eb.refTuple(key as 'file_id', 'id'),
            'in',
            leaving.map((row) => eb.tuple(row[key]!, row.id)),
          ),
        )
        .execute();
    }
  },

  /** Starts indexing over from the first row (after a restore: the pairs written since are skipped as they meet those there). */
  async restart(db: Db): Promise<void> {
    await db.updateTable('audit_index_mark').set({ indexed_through: 0 }).where('id', '=', 1).execute();
  },
};

/**
 * Up to `limit` rows after `from` in tail order, of transactions that no longer run (on SQLite and MySQL
 * all of them), read in pages of READ_PAGE with the event loop's other work between them; `more`: rows
 * were left.
 */
async function readSettled(db: Kysely<Database>, from: TailPosition, limit: number) {
  const rows: Array<{ id: number | string; file_id: string | null; actor_id: string | null }> = [];
  let after = from;
  while (rows.length < limit) {
    if (rows.length > 0) await yieldToEventLoop();
    const page = await inTailOrder(db, db.selectFrom('audit_log').select(['audit_log.id', 'audit_log.file_id', 'audit_log.actor_id']), 'audit_log', 'id', after)
      .limit(Math.min(READ_PAGE, limit - rows.length))
      .execute();
    const firstRunning = page.findIndex((row) => !settled(row.tail_settled));
    rows.push(...(firstRunning === -1 ? page : page.slice(0, firstRunning)));
    if (firstRunning !== -1 || page.length < Math.min(READ_PAGE, limit - rows.length + page.length)) return { rows, more: false };
    // The next page after this one's last row (PostgreSQL takes that row's transaction id).
    after = { seq: Number(page.at(-1)!.id), xid: null };
  }
  return { rows, more: true };
}

/** Writes sorted pairs a chunk at a time; on SQLite each chunk committed without waiting for the disk (the pairs can be written again from `audit_log`). */
async function writeSorted(db: Kysely<Database>, spec: BulkTable, chunks: AsyncIterable<ReadonlyArray<readonly [string, number]>>): Promise<void> {
  const blocks = dialectOf(db).blocksEventLoop;
  let first = true;
  for await (const chunk of chunks) {
    if (!blocks) {
      await bulkInsert(db, spec, chunk);
      continue;
    }
    if (!first) await yieldToEventLoop();
    first = false;
    await dialectWork(db).writeWithoutDiskWait(db, (connection) => bulkInsert(connection, spec, chunk));
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
