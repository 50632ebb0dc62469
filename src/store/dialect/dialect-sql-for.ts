import type { DialectSql } from './dialect-sql.js';
import { dialectOf } from './dialect.js';
import type { Db } from '../schema/schema.js';

/** The dialect SQL of a store or transaction (src/store/dialect/dialect-sql.ts). */
export function dialectSql(db: Db): DialectSql {
  return dialectOf(db).sql;
}
