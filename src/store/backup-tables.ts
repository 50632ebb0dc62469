/**
 * Which tables a backup carries: every table of the store except Kysely's migration bookkeeping (the
 * manifest lists the migrations instead) and, on SQLite, the search index (the FTS5 tables, their shadow
 * tables and the tables the search triggers fill), which the triggers on users, departments and files
 * rebuild as the restore inserts those rows. Both stores thus back up the same set of tables.
 */

/** SQLite tables kept by the search triggers (migrations 003, 006) or filled once by a migration. */
const SQLITE_DERIVED = new Set(['search_positions', 'search_docs', 'search_file_docs', 'search_grams']);

/** A table the migrations create with rows of their own: a restore replaces them with the backup's. */
export const SEEDED_TABLES: ReadonlySet<string> = new Set(['directory_versions']);

/** Tables restored last: their rows are moved by triggers as the other tables are restored. */
export const RESTORED_LAST: readonly string[] = ['directory_versions'];

/** The tables to back up among an SQLite store's `sqlite_master` rows of type `table`, sorted by name. */
export function sqliteBackupTables(tables: ReadonlyArray<{ name: string; sql: string | null }>): string[] {
  const virtual = tables.filter((table) => /^CREATE VIRTUAL TABLE/i.test(table.sql ?? '')).map((table) => table.name);
  return tables
    .map((table) => table.name)
    .filter((name) => !name.startsWith('sqlite_') && !name.startsWith('kysely_') && !SQLITE_DERIVED.has(name))
    .filter((name) => !virtual.some((fts) => name === fts || name.startsWith(`${fts}_`)))
    .sort();
}

/** The tables to back up among a PostgreSQL schema's base tables, sorted by name. */
export function postgresBackupTables(names: readonly string[]): string[] {
  return names.filter((name) => !name.startsWith('kysely_')).sort();
}

/** The SQLite query listing tables for sqliteBackupTables. */
export const SQLITE_TABLES_SQL = "SELECT name, sql FROM sqlite_master WHERE type = 'table'";

/** The PostgreSQL query listing the base tables of the schema in use for postgresBackupTables. */
export const POSTGRES_TABLES_SQL = "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'";

/** A table name as an SQL identifier (names come from the store's own catalogue, quoted all the same). */
export function quoteTable(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
