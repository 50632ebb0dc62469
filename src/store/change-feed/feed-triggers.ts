/** The change feed's trigger names on a table (migration 110), but TRUNCATE's. */
export function feedTriggers(table: string): string[] {
  return ['insert', 'update', 'delete'].map((operation) => `${table}_feed_${operation}`);
}
