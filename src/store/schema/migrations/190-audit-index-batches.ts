import { sql, type Kysely } from 'kysely';
import { ID, type ColumnTypes } from './column-types.js';

/**
 * Listing the audit log by file and by actor without indexing each row as it is written (issue 21): the
 * indexes `audit_by_file (file_id, id)` and `audit_by_actor (actor_id, id)` put one random-key entry each
 * into a large B-tree per access decision, most of a document open's CPU on SQLite. They give way to two
 * tables of (key, id) filled in sorted batches by src/store/audit/audit-index.ts, and a mark: every row up
 * to the mark (in tail order) is in both tables; the rows after it are found by a scan of the time order's
 * tail. WITHOUT ROWID on SQLite: the key is the table.
 *
 * The rows already there are indexed here, up to a mark that covers them all: on PostgreSQL only rows of
 * transactions that no longer run (src/store/postgres/tail-order.ts), the newest of them by (tail_xid, id).
 */
export function auditIndexBatchesMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const [table, key] of [
        ['audit_file_ids', 'file_id'],
        ['audit_actor_ids', 'actor_id'],
      ] as const) {
        let create = t
          .table(db.schema.createTable(table))
          .addColumn(key, t.key(ID), (c) => c.notNull())
          .addColumn('id', t.bigint, (c) => c.notNull())
          .addPrimaryKeyConstraint(`${table}_key`, [key, 'id']);
        if (t.dialect === 'sqlite') create = create.modifyEnd(sql`WITHOUT ROWID`);
        await create.execute();
      }
      await t
        .table(db.schema.createTable('audit_index_mark'))
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('indexed_through', t.bigint, (c) => c.notNull())
        .execute();
      const through =
        t.dialect === 'postgres'
          ? sql<{ id: number | string }>`SELECT id FROM audit_log WHERE tail_xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY tail_xid DESC, id DESC LIMIT 1`
          : sql<{ id: number | string }>`SELECT MAX(id) AS id FROM audit_log`;
      const mark = Number((await through.execute(db)).rows[0]?.id ?? 0);
      await sql`INSERT INTO audit_index_mark (id, indexed_through) VALUES (1, ${mark})`.execute(db);
      const upToMark =
        t.dialect === 'postgres'
          ? sql`(tail_xid, id) <= (COALESCE((SELECT tail_xid FROM audit_log WHERE id <= ${mark} ORDER BY id DESC LIMIT 1), '0'::xid8), ${mark}::bigint)`
          : sql`id <= ${mark}`;
      await sql`INSERT INTO audit_file_ids (file_id, id) SELECT file_id, id FROM audit_log WHERE file_id IS NOT NULL AND ${upToMark} ORDER BY file_id, id`.execute(db);
      await sql`INSERT INTO audit_actor_ids (actor_id, id) SELECT actor_id, id FROM audit_log WHERE actor_id IS NOT NULL AND ${upToMark} ORDER BY actor_id, id`.execute(db);
      for (const index of ['audit_by_file', 'audit_by_actor']) {
        const drop = db.schema.dropIndex(index);
        await (t.dialect === 'mysql' ? drop.on('audit_log') : drop).execute();
      }
    },
  };
}
