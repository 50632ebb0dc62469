import { registerDialect } from '../dialect/dialect.js';
import { mysqlDialect } from '../mysql/index.js';
import { postgresDialect } from '../postgres/index.js';
import { sqliteDialect } from '../sqlite/index.js';

/**
 * Every dialect the store can open with, made known to `dialectOf` (src/store/dialect/dialect.ts). The store's
 * opening (src/store/connection/database.ts) imports this module, so a Kysely instance it opens always has its dialect.
 */
export const STORE_DIALECTS = [sqliteDialect, postgresDialect, mysqlDialect] as const;
for (const dialect of STORE_DIALECTS) registerDialect(dialect);
