import type { Db } from '../schema/schema.js';

/**
 * MySQL: ANALYZE TABLE commits the transaction it runs in, and InnoDB recomputes a table's statistics by
 * itself once a tenth of its rows changed (innodb_stats_auto_recalc), a bulk load included: nothing to do.
 */
export async function refreshStatistics(_db: Db, _tables: readonly string[]): Promise<void> {}

/** Nothing to keep up: InnoDB recomputes a table's statistics once a tenth of its rows changed. */
export async function keepStatistics(_db: Db): Promise<void> {}
