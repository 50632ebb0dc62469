/* eslint-disable @typescript-eslint/no-explicit-any -- one form for any table's update; the caller's types come back on the rows */
import { sql, type Selectable, type UpdateObject, type WhereInterface } from 'kysely';
import type { Database, Db } from '../schema/schema.js';

/** A table whose rows are keyed by a numeric `id` (the claimed queues: events, deliveries, seat tasks). */
export type IdTable = { [T in keyof Database]: Database[T] extends { id: unknown } ? T : never }[keyof Database];

/**
 * Sets `set` on the rows of `table` that `filter` keeps and returns `returning` of each, as they are after
 * the update (a member of each dialect, src/store/dialect.ts). Run it inside a transaction.
 */
export type UpdateReturning = <T extends IdTable, C extends keyof Selectable<Database[T]> & string>(
  trx: Db,
  table: T,
  filter: (query: WhereInterface<Database, T>) => WhereInterface<Database, T>,
  set: UpdateObject<Database, T, T>,
  returning: readonly C[],
) => Promise<Array<Pick<Selectable<Database[T]>, C>>>;

/** SQLite and PostgreSQL: `UPDATE … RETURNING`. */
export const updateThenReturn: UpdateReturning = async (trx, table, filter, set, returning) => {
  const update = filter((trx as any).updateTable(table).set(set)) as any;
  return update.returning(returning).execute();
};

/**
 * MySQL and MariaDB have no `UPDATE … RETURNING`. In the caller's transaction: the rows `filter` keeps are
 * found (a plain read), locked through the primary key, kept if `filter` still keeps them as last
 * committed, updated by id and read again. Locked through the primary key (forced) only: a locking read
 * through another index (the planner's choice for `status = 'pending'`) locks every row it looks at,
 * for a moment, and another worker's SKIP LOCKED then passes over rows that were free.
 */
export const lockUpdateRead: UpdateReturning = async (trx, table, filter, set, returning) => {
  const db = trx as any;
  const ids = async (among?: unknown[]) => {
    const query = db.selectFrom(table).select('id');
    const rows = (await (filter(among ? query.where('id', 'in', among) : query) as any).execute()) as Array<{ id: unknown }>;
    return rows.map((row) => row.id);
  };
  const found = await ids();
  if (found.length === 0) return [];
  await sql`SELECT id FROM ${sql.table(table)} FORCE INDEX (PRIMARY) WHERE id IN (${sql.join(found)}) ORDER BY id FOR UPDATE`.execute(db);
  const kept = await ids(found);
  if (kept.length === 0) return [];
  await db.updateTable(table).set(set).where('id', 'in', kept).execute();
  return db.selectFrom(table).select(returning).where('id', 'in', kept).orderBy('id').execute();
};
