import SQLite from 'better-sqlite3';

/** Another `collab-host serve` runs on the same SQLite file. */
export class SqliteFileServed extends Error {
  override name = 'SqliteFileServed';
}

/**
 * Holds, for as long as the process serves, an exclusive lock on `<file>-serve.lock` (a small SQLite file
 * beside the database, in exclusive locking mode: the operating system releases it when the process ends,
 * even by kill -9). A second `serve` on the same file is refused: each would run the reminder scheduler
 * and the outbox, which SQLite cannot share between processes. Commands (`import`, `sync`) do not take it:
 * their directory writes serialise with the server's on SQLite's write lock. Returns the release.
 */
export function holdServeLock(path: string): () => void {
  const lockPath = `${path}-serve.lock`;
  const lock = new SQLite(lockPath, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') {
      throw new SqliteFileServed(`another collab-host serve is running on ${path} (it holds ${lockPath}): one process serves an SQLite file; use PostgreSQL for several instances`);
    }
    throw error;
  }
  return () => lock.close();
}
