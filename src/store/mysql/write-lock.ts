import { sql } from 'kysely';
import type { Db } from '../schema/schema.js';
import { getLock } from './named-locks.js';

/** How long a directory write waits for the one ahead of it. */
const WAIT_SECONDS = 600;

/**
 * A named lock that every directory write takes first, held until its transaction ends
 * (src/store/mysql/named-locks.ts): two writes on two instances cannot validate against the same state
 * and then both write.
 */
export async function lockDirectoryWrites(db: Db): Promise<void> {
  await sql`SELECT ${getLock('directory-writes', WAIT_SECONDS)}`.execute(db);
}
