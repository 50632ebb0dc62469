import type { Database } from '../schema/schema.js';

/** A table written in bulk: its columns, their PostgreSQL types, and what a conflicting row does. */
export interface BulkTable {
  table: keyof Database;
  columns: readonly string[];
  /** PostgreSQL element type of each column (`text`, `integer`), for the unnest arrays. */
  pgTypes: readonly string[];
  /** Upsert on this key, updating every other column; absent = plain insert. */
  conflictKey?: readonly string[];
  /** A conflict clause of its own, in each syntax, instead of `conflictKey`'s. */
  onConflict?: ConflictClauses;
}

/** The two syntaxes of a conflict clause: `ON CONFLICT …` (SQLite, PostgreSQL), `ON DUPLICATE KEY UPDATE …` (MySQL). */
export type ConflictSyntax = 'on-conflict' | 'on-duplicate-key';

/** One conflict clause written in each syntax; the dialect's (StoreDialect.conflictSyntax) is used. */
export type ConflictClauses = Readonly<Record<ConflictSyntax, string>>;

/** `ON CONFLICT (key) DO UPDATE SET` every other column to the new row's (no other column: DO NOTHING). */
export function onConflictUpsert(columns: readonly string[], conflictKey: readonly string[]): string {
  const updates = columns.filter((column) => !conflictKey.includes(column));
  const key = conflictKey.map(quoteIdentifier).join(', ');
  if (updates.length === 0) return ` ON CONFLICT (${key}) DO NOTHING`;
  return ` ON CONFLICT (${key}) DO UPDATE SET ${updates.map((column) => `${quoteIdentifier(column)} = excluded.${quoteIdentifier(column)}`).join(', ')}`;
}

/** `ON CONFLICT DO NOTHING RETURNING …`: rows meeting a unique key are skipped, the inserted ones returned. */
export function onConflictSkipReturning(returning: readonly string[]): string {
  return ` ON CONFLICT DO NOTHING RETURNING ${returning.map(quoteIdentifier).join(', ')}`;
}

/** What a dialect's statement builder needs (src/store/sqlite|postgres/bulk-insert.ts). */
export type BulkStatementSpec = Omit<BulkTable, 'conflictKey' | 'onConflict'>;

/** An identifier quoted for both dialects. */
export function quoteIdentifier(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
