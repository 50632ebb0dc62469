import { sql, type SqlBool } from 'kysely';
import type { DialectWork } from '../dialect/dialect-work.js';

/** Salt of the advisory-lock keys, so that collab-host's keys do not meet another application's. */
export const LOCK_NAMESPACE = 0x636f6c6c; // "coll"

/**
 * An advisory lock's key for `name` in the schema the connection works in. Advisory locks belong to the
 * whole database, not to a schema: two collab-host stores in two schemas of one database (a staging copy
 * beside production, the test suite's stores) would otherwise wait on each other's turns and keys.
 */
export const schemaLockKey = (name: unknown) => sql`hashtextextended(current_schema() || '/' || ${name}, ${LOCK_NAMESPACE})`;

/** The names of the append and tail turns' locks (names no file, event or delivery key takes: they hold a space). */
const APPEND_TURN = 'turn append';
const TAIL_TURN = 'turn tail';

/** Several instances share the work: row locks that skip held rows, advisory locks per key. */
export const postgresDialectWork: DialectWork = {
  forUpdate: (query) => query.forUpdate(),
  skipLocked: (query) => query.forUpdate().skipLocked(),
  async lockKeys(trx, keys) {
    if (keys.length === 0) return new Set();
    const taken = await sql<{ key: string }>`
      SELECT key FROM unnest(${[...keys]}::text[]) AS key
       WHERE pg_try_advisory_xact_lock(${schemaLockKey(sql.ref('key'))})`.execute(trx);
    return new Set(taken.rows.map((row) => row.key));
  },
  // Outside a transaction the lock is taken and let go within the statement: it only tells whether another holds it.
  keyLooksFree: (key) => sql<SqlBool>`pg_try_advisory_xact_lock(${schemaLockKey(key)})`,
  keyInLane: (key, lane, of) => sql<SqlBool>`(hashtext(${key}) & 2147483647) % ${of}::integer = ${lane}::integer`,
  lanes: 4,
  async takeAppendTurn(trx) {
    await sql`SELECT pg_advisory_xact_lock(${schemaLockKey(APPEND_TURN)})`.execute(trx);
  },
  async takeTailTurn(trx) {
    await sql`SELECT pg_advisory_xact_lock(${schemaLockKey(TAIL_TURN)})`.execute(trx);
  },
  async durableTransaction(db, work, committed) {
    const result = await db.transaction().execute(work);
    committed?.();
    return result;
  },
  writeWithoutDiskWait: (db, write) => write(db),
  transactionWithoutDiskWait: (db, work) =>
    db.transaction().execute(async (trx) => {
      await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      return work(trx);
    }),
};
