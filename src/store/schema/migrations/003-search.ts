import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * The indexes of @-mention search as SQLite held them until migration 160 dropped them (search is
 * answered from the read model in memory since).
 *
 * Two paths per keyword length, because trigram indexes cannot serve keywords under three characters:
 * - three characters or more: FTS5 tables with the trigram tokenizer over names, e-mail local parts and
 *   the pinyin keys;
 * - one or two characters: a "short gram" table (`search_grams`) of users and departments holding every
 *   distinct one- and two-character piece of the lower-case name and e-mail local part (`n:` + piece) and
 *   the first one and two letters of the pinyin keys (`p:` + prefix), so a short keyword is one exact
 *   index lookup.
 * Files have no short-gram index: a short file keyword is matched within the viewer's readable files.
 *
 * PostgreSQL stores migrated before 2026-11-28 also got pg_trgm GIN indexes here (and the `pg_trgm`
 * extension when it was missing); 160 drops those. A new PostgreSQL store, like a MySQL one, gets none of
 * it: the end state is the same, and a fresh start no longer needs an extension nothing uses, nor fails
 * when another schema of the database holds pg_trgm out of the search path.
 *
 * On SQLite the tables are kept in step by triggers on users, files and departments, so every writer
 * (snapshot import, management API) keeps the index right without knowing it exists.
 */
export function searchMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // MySQL and PostgreSQL: nothing (migration 160 drops this index, so a new store need not build it).
      if (t.dialect === 'sqlite') await sqliteUp(db);
      // The recent lists and the "last contact" tie-break read a user's mentions in both directions.
      await db.schema.createIndex('activity_by_user_related').on('activity').columns(['user_id', 'related_user_id', 'occurred_at']).execute();
      await db.schema.createIndex('activity_by_related').on('activity').columns(['related_user_id', 'occurred_at']).execute();
    },
  };
}

/** SQLite has no shared positions function in triggers (no CTE there): a numbers table stands in. */
const MAX_INDEXED_CHARS = 256;

interface IndexedKind {
  kind: 'user' | 'file' | 'department';
  table: 'users' | 'files' | 'departments';
  fts: string;
  /** Whether one- and two-character pieces are indexed (users and departments). */
  shortGrams: boolean;
  /** Whether the e-mail local part is searched (users). */
  email: boolean;
}

const KINDS: IndexedKind[] = [
  { kind: 'user', table: 'users', fts: 'users_fts', shortGrams: true, email: true },
  { kind: 'department', table: 'departments', fts: 'departments_fts', shortGrams: true, email: false },
  { kind: 'file', table: 'files', fts: 'files_fts', shortGrams: false, email: false },
];

/** The lower-case e-mail local part of a row (`row` is NEW or OLD); the whole value when it has no `@`. */
export function sqliteLocalPart(row: string): string {
  return `lower(CASE WHEN instr(coalesce(${row}.email, ''), '@') > 0 THEN substr(${row}.email, 1, instr(${row}.email, '@') - 1) ELSE coalesce(${row}.email, '') END)`;
}

async function sqliteUp(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE search_positions (i INTEGER PRIMARY KEY)`.execute(db);
  await sql`
    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${sql.lit(MAX_INDEXED_CHARS)})
    INSERT INTO search_positions (i) SELECT i FROM n`.execute(db);
  // FTS rows are keyed by a stable integer docid (an entity's own rowid may change on VACUUM).
  await sql`CREATE TABLE search_docs (docid INTEGER PRIMARY KEY, kind TEXT NOT NULL, entity_id TEXT NOT NULL, UNIQUE (kind, entity_id))`.execute(db);
  await sql`
    CREATE TABLE search_grams (
      kind TEXT NOT NULL, gram TEXT NOT NULL, entity_id TEXT NOT NULL,
      PRIMARY KEY (kind, gram, entity_id)
    ) WITHOUT ROWID`.execute(db);
  await sql`CREATE INDEX search_grams_by_entity ON search_grams (kind, entity_id)`.execute(db);

  for (const k of KINDS) {
    const columns = k.email ? 'name, local, pinyin, initials' : 'name, pinyin, initials';
    await sql.raw(`CREATE VIRTUAL TABLE ${k.fts} USING fts5(${columns}, tokenize = 'trigram')`).execute(db);
    const watched = k.email ? 'id, name, email, name_pinyin, name_initials' : 'id, name, name_pinyin, name_initials';
    const add = addStatements(k);
    const remove = removeStatements(k);
    await sql.raw(`CREATE TRIGGER ${k.table}_search_insert AFTER INSERT ON ${k.table} BEGIN ${add} END`).execute(db);
    await sql.raw(`CREATE TRIGGER ${k.table}_search_delete AFTER DELETE ON ${k.table} BEGIN ${remove} END`).execute(db);
    await sql.raw(`CREATE TRIGGER ${k.table}_search_update AFTER UPDATE OF ${watched} ON ${k.table} BEGIN ${remove} ${add} END`).execute(db);
    // Rows written before this migration: a no-op update runs the update trigger for each.
    await sql.raw(`UPDATE ${k.table} SET name = name`).execute(db);
  }
}

function addStatements(k: IndexedKind): string {
  const values = k.email ? `NEW.name, ${sqliteLocalPart('NEW')}, NEW.name_pinyin, NEW.name_initials` : 'NEW.name, NEW.name_pinyin, NEW.name_initials';
  const columns = k.email ? 'rowid, name, local, pinyin, initials' : 'rowid, name, pinyin, initials';
  let statements = `
    INSERT OR IGNORE INTO search_docs (kind, entity_id) VALUES ('${k.kind}', NEW.id);
    INSERT INTO ${k.fts} (${columns})
      SELECT docid, ${values} FROM search_docs WHERE kind = '${k.kind}' AND entity_id = NEW.id;`;
  if (k.shortGrams) {
    const texts = k.email ? `SELECT lower(NEW.name) AS v UNION ALL SELECT ${sqliteLocalPart('NEW')}` : 'SELECT lower(NEW.name) AS v';
    statements += `
    INSERT OR IGNORE INTO search_grams (kind, gram, entity_id)
      SELECT DISTINCT '${k.kind}', g, NEW.id FROM (
        SELECT 'n:' || substr(s.v, p.i, w.n) AS g
          FROM (${texts}) s
          JOIN search_positions p ON p.i <= length(s.v)
          JOIN (SELECT 1 AS n UNION ALL SELECT 2) w ON p.i + w.n - 1 <= length(s.v)
        UNION ALL
        SELECT 'p:' || substr(t.v, 1, w.n)
          FROM (SELECT NEW.name_pinyin AS v UNION ALL SELECT NEW.name_initials) t
          JOIN (SELECT 1 AS n UNION ALL SELECT 2) w ON length(t.v) >= w.n
      );`;
  }
  return statements;
}

function removeStatements(k: IndexedKind): string {
  let statements = `
    DELETE FROM ${k.fts} WHERE rowid IN (SELECT docid FROM search_docs WHERE kind = '${k.kind}' AND entity_id = OLD.id);
    DELETE FROM search_docs WHERE kind = '${k.kind}' AND entity_id = OLD.id;`;
  if (k.shortGrams) statements += `\n    DELETE FROM search_grams WHERE kind = '${k.kind}' AND entity_id = OLD.id;`;
  return statements;
}
