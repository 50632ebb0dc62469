import { sql, type SqlBool } from 'kysely';
import type { DialectWork } from '../dialect-work.js';

/** Salt of the advisory-lock keys, so that collab-host's keys do not meet another application's. */
const LOCK_NAMESPACE = 0x636f6c6c; // "coll"

/** The second key of the append turn's lock (two-key advisory locks never meet the one-key locks of lockKeys). */
const APPEND_TURN = 1;
/** The second key of the tail turn's lock (one lock for every tailed table, so no two turns wait on each other). */
const TAIL_TURN = 2;

/** Several instances share the work: row locks that skip held rows, advisory locks per key. */
export const postgresDialectWork: DialectWork = {
  forUpdate: (query) => query.forUpdate(),
  skipLocked: (query) => query.forUpdate().skipLocked(),
  async lockKeys(trx, keys) {
    if (keys.length === 0) return new Set();
    const taken = await sql<{ key: string }>`
      SELECT key FROM unnest(${[...keys]}::text[]) AS key
       WHERE pg_try_advisory_xact_lock(hashtextextended(key, ${LOCK_NAMESPACE}))`.execute(trx);
    return new Set(taken.rows.map((row) => row.key));
  },
  // Outside a transaction the lock is taken and let go within the statement: it only tells whether another holds it.
  keyLooksFree: (key) => sql<SqlBool>`pg_try_advisory_xact_lock(hashtextextended(${key}, ${LOCK_NAMESPACE}))`,
  keyInLane: (key, lane, of) => sql<SqlBool>`(hashtext(${key}) & 2147483647) % ${of}::integer = ${lane}::integer`,
  lanes: 4,
  async takeAppendTurn(trx) {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_NAMESPACE}::integer, ${APPEND_TURN}::integer)`.execute(trx);
  },
  async takeTailTurn(trx) {
    await sql`SELECT pg_advisory_xact_lock(${LOCK_NAMESPACE}::integer, ${TAIL_TURN}::integer)`.execute(trx);
  },
  durableTransaction: (db, work) => db.transaction().execute(work),
  transactionWithoutDiskWait: (db, work) =>
    db.transaction().execute(async (trx) => {
      await sql`SET LOCAL synchronous_commit = off`.execute(trx);
      return work(trx);
    }),
};
