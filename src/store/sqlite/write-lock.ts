import type { Db } from '../schema/schema.js';
import { Statement } from '../statements/statement.js';

/**
 * A write statement that changes nothing: SQLite takes the database's write lock when a transaction's first
 * write statement starts, so the reads that follow (the validation) and the writes see one state, even
 * with another process (`collab-host import` next to the server) writing the same file.
 */
const TAKE_WRITE_LOCK = new Statement('DELETE FROM teams WHERE 0 = 1');

/** Serialises directory writes: call first inside the write's transaction. */
export async function lockDirectoryWrites(db: Db): Promise<void> {
  await TAKE_WRITE_LOCK.run(db, []);
}
