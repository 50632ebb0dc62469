import { STORE_DIALECTS } from './dialects.js';

export { SqliteFileServed } from '../sqlite/serve-lock.js';

/**
 * What the dialect of `databaseUrl` holds while one `serve` runs on it (SQLite: the file, so that a second
 * `serve` on it is refused, sqlite/serve-lock.ts; the others hold nothing). Returns the release.
 */
export function serveLockFor(databaseUrl: string): () => void {
  return STORE_DIALECTS.find((dialect) => dialect.opens(databaseUrl))?.holdServeLock(databaseUrl) ?? (() => {});
}
