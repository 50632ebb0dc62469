import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * A short-gram index for file names, so a one- or two-character file keyword (`周报`, `lw`) is an index
 * lookup like it is for users and departments (003-search.ts) instead of a match over every file the
 * viewer may read. Same grams as 003: every one- and two-character piece of the lower-case name
 * (`n`) and the first one and two letters of the pinyin keys (`p`).
 *
 * SQLite: a contentless FTS5 table with `detail=none` (a doclist of row numbers per gram, a few bytes per
 * file) whose tokens are `n`/`p` + the gram's UTF-8 bytes in hex, so the `ascii` tokenizer keeps every
 * gram, punctuation and spaces included, as one token. Row numbers come from `search_file_docs`, stable
 * across VACUUM, kept in step by triggers like 003's. (PostgreSQL stores migrated before 2026-11-28
 * got a GIN index over 003's `ch_search_grams(...)` expression here; 160 drops it.)
 */
export function searchShortFileGramsMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // MySQL and PostgreSQL: nothing (migration 160 drops this index; see 003-search.ts).
      if (t.dialect !== 'sqlite') return;
      await sql`CREATE TABLE search_file_docs (docid INTEGER PRIMARY KEY, file_id TEXT NOT NULL UNIQUE)`.execute(db);
      await sql`CREATE VIRTUAL TABLE files_short_grams USING fts5(grams, tokenize = 'ascii', detail = 'none', content = '', contentless_delete = 1)`.execute(db);
      const add = `
        INSERT OR IGNORE INTO search_file_docs (file_id) VALUES (NEW.id);
        INSERT INTO files_short_grams (rowid, grams)
          SELECT docid, ${sqliteFileGrams('NEW')} FROM search_file_docs WHERE file_id = NEW.id;`;
      const remove = `
        DELETE FROM files_short_grams WHERE rowid = (SELECT docid FROM search_file_docs WHERE file_id = OLD.id);
        DELETE FROM search_file_docs WHERE file_id = OLD.id;`;
      await sql.raw(`CREATE TRIGGER files_short_grams_insert AFTER INSERT ON files BEGIN ${add} END`).execute(db);
      await sql.raw(`CREATE TRIGGER files_short_grams_delete AFTER DELETE ON files BEGIN ${remove} END`).execute(db);
      await sql.raw(`CREATE TRIGGER files_short_grams_update AFTER UPDATE OF id, name, name_pinyin, name_initials ON files BEGIN ${remove} ${add} END`).execute(db);
      // Files written before this migration.
      await sql`INSERT INTO search_file_docs (file_id) SELECT id FROM files`.execute(db);
      await sql.raw(`INSERT INTO files_short_grams (rowid, grams) SELECT d.docid, ${sqliteFileGrams('f')} FROM files f JOIN search_file_docs d ON d.file_id = f.id`).execute(db);
    },
  };
}

/**
 * The space-separated gram tokens of a file row (`row` is NEW or a table alias). The pieces come from
 * 003's `search_positions` numbers table, so names are indexed over their first 256 characters.
 */
function sqliteFileGrams(row: string): string {
  return `(SELECT group_concat(g, ' ') FROM (
      SELECT 'n' || hex(substr(s.v, p.i, w.n)) AS g
        FROM (SELECT lower(${row}.name) AS v) s
        JOIN search_positions p ON p.i <= length(s.v)
        JOIN (SELECT 1 AS n UNION ALL SELECT 2) w ON p.i + w.n - 1 <= length(s.v)
      UNION
      SELECT 'p' || hex(substr(t.v, 1, w.n))
        FROM (SELECT ${row}.name_pinyin AS v UNION ALL SELECT ${row}.name_initials) t
        JOIN (SELECT 1 AS n UNION ALL SELECT 2) w ON length(t.v) >= w.n
    ))`;
}

/** The FTS5 query of a short keyword over `files_short_grams`: either of its two tokens. */
export function sqliteShortFileQuery(keyword: string): string {
  const hex = Buffer.from(keyword, 'utf8').toString('hex');
  return `n${hex} OR p${hex}`;
}
