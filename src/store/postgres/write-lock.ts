import type { Db } from '../schema.js';
import { Statement } from '../statement.js';

/**
 * A transaction-scoped advisory lock (released at commit or rollback) that every directory write takes
 * first: two writes on two instances cannot validate against the same state and then both write.
 * The key is a fixed number chosen for collab-host's directory writes.
 */
const TAKE_WRITE_LOCK = new Statement('SELECT pg_advisory_xact_lock(7211803351)');

/** Serialises directory writes: call first inside the write's transaction. */
export async function lockDirectoryWrites(db: Db): Promise<void> {
  await TAKE_WRITE_LOCK.run(db, []);
}
