import { sql, type SqlBool } from 'kysely';
import type { DialectWork } from '../dialect/dialect-work.js';
import { TAKE_TAIL_TURN } from './ordering.js';
import { getLock, lockName } from './named-locks.js';

/** How long a turn waits for the transaction ahead of it (a turn is held for one short transaction). */
const TURN_WAIT_SECONDS = 600;

/**
 * Several instances share the work, as on PostgreSQL: row locks that skip held rows, and named locks per
 * key and per turn, held until the transaction ends (src/store/mysql/named-locks.ts). MySQL has no commit
 * that skips the disk for one transaction: both transaction kinds are plain transactions.
 */
export const mysqlDialectWork: DialectWork = {
  forUpdate: (query) => query.forUpdate(),
  skipLocked: (query) => query.forUpdate().skipLocked(),
  async lockKeys(trx, keys) {
    if (keys.length === 0) return new Set();
    const unique = [...new Set(keys)];
    const taken = await sql<Record<string, number | null>>`SELECT ${sql.join(unique.map((key, index) => sql`${getLock(key, 0)} AS ${sql.ref(`k${index}`)}`))}`.execute(trx);
    const row = taken.rows[0] ?? {};
    return new Set(unique.filter((_key, index) => Number(row[`k${index}`]) === 1));
  },
  keyLooksFree: (key) => sql<SqlBool>`IS_FREE_LOCK(${lockName(key)}) = 1`,
  keyInLane: (key, lane, of) => sql<SqlBool>`MOD(CRC32(${key}), ${of}) = ${lane}`,
  lanes: 4,
  async takeAppendTurn(trx) {
    await sql`SELECT ${getLock('append-turn', TURN_WAIT_SECONDS)}`.execute(trx);
  },
  // The row the tailed tables' insert triggers raise (migration 150): taken before the insert, as they would.
  async takeTailTurn(trx) {
    await sql.raw(TAKE_TAIL_TURN).execute(trx);
  },
  async durableTransaction(db, work, committed) {
    const result = await db.transaction().execute(work);
    committed?.();
    return result;
  },
  writeWithoutDiskWait: (db, write) => write(db),
  transactionWithoutDiskWait: (db, work) => db.transaction().execute(work),
};
