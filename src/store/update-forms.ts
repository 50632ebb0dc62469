/* eslint-disable @typescript-eslint/no-explicit-any -- one form for any table's update; the caller's types come back on the rows */
import type { Selectable, UpdateObject, WhereInterface } from 'kysely';
import type { Database, Db } from './schema.js';

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
 * MySQL and MariaDB have no `UPDATE … RETURNING`: the rows `filter` keeps are locked (`FOR UPDATE`), updated
 * by id, and read again, all in the caller's transaction, so no other transaction changes them in between.
 */
export const lockUpdateRead: UpdateReturning = async (trx, table, filter, set, returning) => {
  const db = trx as any;
  const locked = (await (filter(db.selectFrom(table).select('id')) as any).forUpdate().execute()) as Array<{ id: unknown }>;
  if (locked.length === 0) return [];
  const ids = locked.map((row) => row.id);
  await db.updateTable(table).set(set).where('id', 'in', ids).execute();
  return db.selectFrom(table).select(returning).where('id', 'in', ids).orderBy('id').execute();
};
