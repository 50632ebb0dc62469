import { PostgresAdapter, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** The SQL dialects collab-host runs on (MySQL covers MariaDB). */
export type DialectName = 'sqlite' | 'postgres' | 'mysql';

/** Whether a Kysely instance (or transaction) talks to PostgreSQL. */
export function isPostgres(db: Kysely<Database>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
