import { sql, type Kysely } from 'kysely';
import type { Database, Db } from '../schema/schema.js';

/**
 * Runs `write` (one SQLite statement, committed on its own) at synchronous=NORMAL: not synced, so a power
 * cut may lose it, a killed process does not. The connection is held so no other statement runs at that
 * level meanwhile. A single statement rather than `transactionWithoutDiskWait`: the transaction's own
 * statements cost about as much CPU as the rows they would carry.
 */
export function withoutDiskWait(db: Kysely<Database>, write: (connection: Db) => Promise<void>): Promise<void> {
  return db.connection().execute(async (connection) => {
    const [current] = (await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(connection)).rows;
    await sql`PRAGMA synchronous = NORMAL`.execute(connection);
    try {
      await write(connection);
    } finally {
      await sql.raw(`PRAGMA synchronous = ${Number(current?.synchronous ?? 2)}`).execute(connection);
    }
  });
}
