/* eslint-disable @typescript-eslint/no-explicit-any -- the forms take any table's insert and give it back as it came */
import { sql, type InsertQueryBuilder } from 'kysely';

/** An insert of any table, as Kysely builds it. */
export type AnyInsert = InsertQueryBuilder<any, any, any>;

/**
 * The two forms a Kysely insert takes when it may meet a row already there (a member of each dialect,
 * src/store/dialect.ts): left as it is, or some of its columns set to the new row's values.
 */
export interface ConflictForms {
  /** Inserts the row unless it meets a unique key (`key`: that key; empty: any), in which case nothing happens. */
  insertOrKeep<Q extends AnyInsert>(query: Q, key: readonly string[]): Q;
  /** Inserts the row, or on meeting the unique key `key` sets `columns` of the row there to the new row's values. */
  insertOrUpdate<Q extends AnyInsert>(query: Q, key: readonly string[], columns: readonly string[]): Q;
}

/** SQLite and PostgreSQL: `ON CONFLICT (…) DO NOTHING` and `DO UPDATE SET column = excluded.column`. */
export const onConflictForms: ConflictForms = {
  insertOrKeep: (query, key) => query.onConflict((oc) => (key.length > 0 ? oc.columns(key as any) : oc).doNothing()) as typeof query,
  insertOrUpdate: (query, key, columns) =>
    query.onConflict((oc) => oc.columns(key as any).doUpdateSet((eb) => Object.fromEntries(columns.map((column) => [column, eb.ref(`excluded.${column}`)])))) as typeof query,
};

/**
 * MySQL: `INSERT IGNORE` (any unique key) and `ON DUPLICATE KEY UPDATE column = VALUES(column)` (MySQL has
 * no conflict target: whichever unique key the row meets).
 */
export const onDuplicateKeyForms: ConflictForms = {
  insertOrKeep: (query) => query.ignore() as typeof query,
  insertOrUpdate: (query, _key, columns) => query.onDuplicateKeyUpdate(Object.fromEntries(columns.map((column) => [column, sql`VALUES(${sql.ref(column)})`]))) as typeof query,
};
