import { PostgresAdapter, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The two SQL dialects collab-host runs on. */
export type DialectName = 'sqlite' | 'postgres';

/** Whether a Kysely instance (or transaction) talks to PostgreSQL. */
export function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
