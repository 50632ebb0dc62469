import type { DialectSql } from './dialect-sql.js';
import { isPostgres } from './dialect.js';
import { postgresSql } from './postgres/dialect-sql.js';
import type { Db } from './schema.js';
import { sqliteSql } from './sqlite/dialect-sql.js';

/** The dialect SQL of a store or transaction (src/store/dialect-sql.ts). */
export function dialectSql(db: Db): DialectSql {
  return isPostgres(db) ? postgresSql : sqliteSql;
}
