import { openDatabase } from '../src/store/connection/database.js';
import { Statement } from '../src/store/statements/statement.js';

/** Runs a statement (PostgreSQL's `$n` placeholders, as every fixed statement of the store) and returns its rows. */
export type StoreQuery = <Row = Record<string, unknown>>(text: string, parameters?: readonly unknown[]) => Promise<Row[]>;

/**
 * Runs `work` with a way to query the store at `databaseUrl` (any dialect: through the store's own opening
 * and statements, so the bench reads SQLite, PostgreSQL and MySQL alike), closed afterwards.
 */
export async function withStoreQuery<T>(databaseUrl: string, work: (query: StoreQuery) => Promise<T>): Promise<T> {
  // A reader: it neither migrates nor changes the store it reads.
  const store = await openDatabase(databaseUrl, { poolSize: 1, migrate: false });
  try {
    return await work((text, parameters = []) => new Statement(text).run(store.db, parameters));
  } finally {
    await store.close();
  }
}
