import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

/**
 * Kysely's SQLite driver prepares every statement anew; preparing costs more than running a small
 * indexed query. This keeps the most recently used prepared statements by their SQL text (an LRU, so
 * queries with variable-length IN lists cannot grow it without bound). Safe because Kysely runs one
 * statement at a time on the single SQLite connection.
 */
export function withStatementCache(database: SQLite.Database, capacity = 500): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      if (statement) {
        cache.delete(sqlText);
      } else {
        statement = database.prepare(sqlText);
        if (cache.size >= capacity) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sqlText, statement);
      return statement as unknown as ReturnType<SqliteDatabase['prepare']>;
    },
  };
}
