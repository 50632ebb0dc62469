import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * Search is answered from the read model in memory (src/directory/read-model/): the SQL search index of
 * migrations 003 and 006 has no reader left, and its triggers cost every write to users, departments and
 * files. This drops all of it, so a database migrated from an older version ends up with the schema of a
 * new one (which runs 003 and 006 and then this). The activity indexes of 003 stay: the recent lists and
 * the "last contact" order still read a user's mentions through them.
 *
 * PostgreSQL keeps the pg_trgm extension 003 created: other schemas of the database may use it, and a
 * DBA may drop it (`DROP EXTENSION pg_trgm`) when nothing does.
 */
export function dropSearchIndexMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // MySQL: nothing to drop (003 and 006 made none of it there).
      if (t.dialect === 'mysql') return;
      if (t.dialect === 'postgres') await postgresUp(db);
      else await sqliteUp(db);
      await sql`DROP INDEX IF EXISTS files_search_cover`.execute(db);
    },
  };
}

const TABLES = ['users', 'departments', 'files'] as const;

async function sqliteUp(db: Kysely<unknown>): Promise<void> {
  const triggers = [
    ...TABLES.flatMap((table) => [`${table}_search_insert`, `${table}_search_delete`, `${table}_search_update`]),
    'files_short_grams_insert',
    'files_short_grams_delete',
    'files_short_grams_update',
  ];
  for (const trigger of triggers) await sql`DROP TRIGGER IF EXISTS ${sql.id(trigger)}`.execute(db);
  // The FTS5 tables drop their shadow tables with them; search_grams its index.
  for (const table of ['users_fts', 'departments_fts', 'files_fts', 'files_short_grams', 'search_docs', 'search_file_docs', 'search_grams', 'search_positions']) {
    await sql`DROP TABLE IF EXISTS ${sql.id(table)}`.execute(db);
  }
}

async function postgresUp(db: Kysely<unknown>): Promise<void> {
  const indexes = [...TABLES.flatMap((table) => [`${table}_name_trgm`, `${table}_pinyin_trgm`, `${table}_initials_trgm`, `${table}_short_grams`]), 'users_local_trgm'];
  for (const index of indexes) await sql`DROP INDEX IF EXISTS ${sql.id(index)}`.execute(db);
  await sql`DROP FUNCTION IF EXISTS ch_search_grams(text, text, text, text)`.execute(db);
}
