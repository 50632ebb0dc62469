import type { Database } from '../schema/schema.js';

/** A table written in bulk: its columns, their PostgreSQL types, and what a conflicting row does. */
export interface BulkTable {
  table: keyof Database;
  columns: readonly string[];
  /** PostgreSQL element type of each column (`text`, `integer`), for the unnest arrays. */
  pgTypes: readonly string[];
  /** Upsert on this key, updating every other column; absent = plain insert. */
  conflictKey?: readonly string[];
  /** A conflict clause of its own (`ON CONFLICT (…) DO UPDATE SET … WHERE …`), instead of `conflictKey`'s. */
  onConflict?: string;
}

/** What a dialect's statement builder needs (src/store/sqlite|postgres/bulk-insert.ts). */
export type BulkStatementSpec = Omit<BulkTable, 'conflictKey' | 'onConflict'>;

/** An identifier quoted for both dialects. */
export function quoteIdentifier(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
