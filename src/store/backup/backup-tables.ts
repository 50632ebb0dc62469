/**
 * Which tables a backup carries: every table of the store except Kysely's migration bookkeeping (the
 * manifest lists the migrations instead), the change feed and the audit index's mark. Both stores back up the same set of tables.
 */

/**
 * Tables about this database's own transactions, which a restore makes anew rather than carries:
 * - the directory's change feed (migration 110): the triggers on the directory tables write it again as
 *   the restore inserts their rows, and its form differs by store (PostgreSQL's rows carry transaction ids);
 * - the audit index's mark (migration 190): a tail position, whose meaning on PostgreSQL rests on the
 *   transaction ids the restore gives the rows; after a restore indexing starts over (src/store/audit/audit-index.ts).
 */
const NOT_CARRIED = new Set(['directory_changes', 'audit_index_mark']);

/** A table the migrations create with rows of their own: a restore replaces them with the backup's. */
export const SEEDED_TABLES: ReadonlySet<string> = new Set(['directory_versions']);

/** Tables restored last: their rows are moved by triggers as the other tables are restored. */
export const RESTORED_LAST: readonly string[] = ['directory_versions'];

/** The tables to back up among an SQLite store's `sqlite_master` rows of type `table`, sorted by name. */
export function sqliteBackupTables(tables: ReadonlyArray<{ name: string; sql: string | null }>): string[] {
  return tables
    .map((table) => table.name)
    .filter((name) => !name.startsWith('sqlite_') && !name.startsWith('kysely_') && !NOT_CARRIED.has(name))
    .sort();
}

/** The tables to back up among a PostgreSQL schema's base tables, sorted by name. */
export function postgresBackupTables(names: readonly string[]): string[] {
  return names.filter((name) => !name.startsWith('kysely_') && !NOT_CARRIED.has(name)).sort();
}

/** The SQLite query listing tables for sqliteBackupTables. */
export const SQLITE_TABLES_SQL = "SELECT name, sql FROM sqlite_master WHERE type = 'table'";

/** The PostgreSQL query listing the base tables of the schema in use for postgresBackupTables. */
export const POSTGRES_TABLES_SQL = "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'";

/** A table name as an SQL identifier (names come from the store's own catalogue, quoted all the same). */
export function quoteTable(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
