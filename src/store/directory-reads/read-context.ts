import type { Kysely } from 'kysely';
import type { DirectoryCaches } from './directory-caches.js';
import type { DialectSql } from '../dialect/dialect-sql.js';
import type { PreparedReads } from '../statements/prepared-reads.js';
import type { Database } from '../schema/schema.js';

/** What the read side of the store works with: one per process, or per read worker. */
export interface ReadContext {
  db: Kysely<Database>;
  sql: DialectSql;
  /** Fixed statements, prepared (src/store/statements/prepared-reads.ts). */
  reads: PreparedReads;
  caches: DirectoryCaches;
}
