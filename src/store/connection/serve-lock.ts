import { holdServeLock } from '../sqlite/serve-lock.js';

export { SqliteFileServed } from '../sqlite/serve-lock.js';

/**
 * One `serve` per SQLite file (sqlite/serve-lock.ts); nothing to hold for PostgreSQL or an in-memory
 * database. Returns the release.
 */
export function serveLockFor(databaseUrl: string): () => void {
  const path = databaseUrl.startsWith('sqlite:') ? databaseUrl.slice('sqlite:'.length) : ':memory:';
  return path === ':memory:' ? () => {} : holdServeLock(path);
}
