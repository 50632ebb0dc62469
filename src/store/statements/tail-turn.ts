import { dialectWork } from '../dialect/dialect-work-for.js';
import type { Db } from '../schema/schema.js';

/**
 * Runs `insert` (rows of a table that listings tail by sequence, such as the audit log)
 * in the tail turn (DialectWork.takeTailTurn): inside `db` when it is a transaction, the turn then held
 * until that transaction ends; else in a transaction of its own.
 */
export async function inTailTurn<T>(db: Db, insert: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) {
    await dialectWork(db).takeTailTurn(db);
    return insert(db);
  }
  return db.transaction().execute(async (trx) => {
    await dialectWork(trx).takeTailTurn(trx);
    return insert(trx);
  });
}
