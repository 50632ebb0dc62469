import { sql } from 'kysely';
import type { Db } from '../schema/schema.js';
import { schemaLockKey } from './dialect-work.js';

/**
 * A transaction-scoped advisory lock (released at commit or rollback) that every directory write takes
 * first: two writes on two instances cannot validate against the same state and then both write. Keyed
 * by the schema (src/store/postgres/dialect-work.ts), as every lock of the store is.
 */
export async function lockDirectoryWrites(db: Db): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(${schemaLockKey('directory writes')})`.execute(db);
}
