import { sql, type RawBuilder } from 'kysely';
import { MATCH_TIERS } from '../directory/search-ranking.js';
import { isShortKeyword, type SearchKeyword } from '../directory/search-keyword.js';
import type { DialectName } from './dialect.js';
import { pgGramsExpression, sqliteLocalPart, PG_LOCAL_PART } from './migrations/003-search.js';
import { sqliteShortFileQuery } from './migrations/006-search-short-file-grams.js';

/**
 * The SQL forms of the matching rules of src/directory/search-ranking.ts, per dialect, over a row alias
 * with `name`, `name_pinyin`, `name_initials` (and `email` for users).
 *
 * Two pieces: `tierSql` is the truth (the tier, or NULL when the row does not match) and is computed
 * only for rows already narrowed by `indexFilterSql`, which is what makes a keystroke cheap:
 *   3+ characters  SQLite FTS5 trigram MATCH / PostgreSQL pg_trgm LIKE '%k%' (GIN)
 *   1-2 characters one exact lookup in the short-gram index (users and departments: 003-search.ts;
 *                  files: 006-search-short-file-grams.ts)
 */
export interface MatchTarget {
  kind: 'user' | 'department' | 'file';
  /** The alias of the row in the query. */
  alias: string;
}

const FTS_TABLE = { user: 'users_fts', department: 'departments_fts', file: 'files_fts' } as const;

function localPart(dialect: DialectName, target: MatchTarget): RawBuilder<string> | null {
  if (target.kind !== 'user') return null;
  return sql.raw(dialect === 'postgres' ? PG_LOCAL_PART(target.alias) : sqliteLocalPart(target.alias));
}

/** `position of needle in haystack` (1-based, 0 when absent) in the dialect. */
function contains(dialect: DialectName, haystack: RawBuilder<string>, needle: string): RawBuilder<boolean> {
  return dialect === 'postgres' ? sql`strpos(${haystack}, ${needle}) > 0` : sql`instr(${haystack}, ${needle}) > 0`;
}

/** The match tier of the row (0 best) or NULL; 0 for every row when the keyword is empty. */
export function tierSql(dialect: DialectName, target: MatchTarget, keyword: SearchKeyword): RawBuilder<number | null> {
  if (keyword.text === '') return sql<number>`${sql.lit(MATCH_TIERS.exact)}`;
  const k = keyword.text;
  const a = target.alias;
  const name = sql.raw<string>(`lower(${a}.name)`);
  const texts = [name, ...(localPart(dialect, target) ? [localPart(dialect, target) as RawBuilder<string>] : [])];
  const keys = [sql.raw<string>(`${a}.name_pinyin`), sql.raw<string>(`${a}.name_initials`)];
  const any = (parts: RawBuilder<boolean>[]) => sql.join(parts, sql` OR `);
  const prefix = (text: RawBuilder<string>) => sql<boolean>`substr(${text}, 1, ${keyword.length}) = ${k}`;
  const branches = [
    sql`WHEN ${any(texts.map((text) => sql<boolean>`${text} = ${k}`))} THEN ${sql.lit(MATCH_TIERS.exact)}`,
    sql`WHEN ${any(texts.map(prefix))} THEN ${sql.lit(MATCH_TIERS.prefix)}`,
    sql`WHEN ${any(texts.map((text) => contains(dialect, text, k)))} THEN ${sql.lit(MATCH_TIERS.substring)}`,
    sql`WHEN ${any(keys.map(prefix))} THEN ${sql.lit(MATCH_TIERS.pinyinPrefix)}`,
  ];
  if (!isShortKeyword(keyword)) {
    branches.push(sql`WHEN ${any(keys.map((key) => contains(dialect, key, k)))} THEN ${sql.lit(MATCH_TIERS.pinyinSubstring)}`);
  }
  return sql<number | null>`(CASE ${sql.join(branches, sql` `)} END)`;
}

/** Whether an index can narrow this kind for this keyword (every kind, for every keyword but ''). */
export function hasIndexPath(keyword: SearchKeyword): boolean {
  return keyword.text !== '';
}

/**
 * A cheap condition every row matching the keyword satisfies (the keyword occurs in the name, e-mail local
 * part or a pinyin key), to skip `tierSql` on the many rows of a scope that do not match. Non-empty keyword.
 */
export function containsKeywordSql(dialect: DialectName, target: MatchTarget, keyword: SearchKeyword): RawBuilder<boolean> {
  const a = target.alias;
  const texts = [sql.raw<string>(`lower(${a}.name)`), sql.raw<string>(`${a}.name_pinyin`), sql.raw<string>(`${a}.name_initials`)];
  const local = localPart(dialect, target);
  if (local) texts.push(local);
  return sql`(${sql.join(
    texts.map((text) => contains(dialect, text, keyword.text)),
    sql` OR `,
  )})`;
}

/**
 * An indexed condition that every row matching the keyword satisfies (it may let a few more through;
 * `tierSql` decides). Only for a non-empty keyword where `hasIndexPath` holds.
 */
export function indexFilterSql(dialect: DialectName, target: MatchTarget, keyword: SearchKeyword): RawBuilder<boolean> {
  const k = keyword.text;
  const a = target.alias;
  if (isShortKeyword(keyword)) {
    if (dialect === 'postgres') {
      return sql`${sql.raw(pgGramsExpression(a, target.kind === 'user'))} && ARRAY[${`n:${k}`}, ${`p:${k}`}]::text[]`;
    }
    if (target.kind === 'file') return sql`${sql.ref(`${a}.id`)} IN (${shortFileIdsSql(keyword)})`;
    return sql`${sql.ref(`${a}.id`)} IN (SELECT entity_id FROM search_grams WHERE kind = ${target.kind} AND gram IN (${`n:${k}`}, ${`p:${k}`}))`;
  }
  if (dialect === 'postgres') {
    const pattern = `%${k.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const columns = [sql.raw<string>(`lower(${a}.name)`), sql.raw<string>(`${a}.name_pinyin`), sql.raw<string>(`${a}.name_initials`)];
    const local = localPart(dialect, target);
    if (local) columns.push(local);
    return sql`(${sql.join(
      columns.map((column) => sql`${column} LIKE ${pattern}`),
      sql` OR `,
    )})`;
  }
  const fts = FTS_TABLE[target.kind];
  const phrase = `"${k.replaceAll('"', '""')}"`;
  return sql`${sql.ref(`${a}.id`)} IN (SELECT d.entity_id FROM ${sql.table(fts)} JOIN search_docs d ON d.docid = ${sql.ref(`${fts}.rowid`)} WHERE ${sql.table(fts)} MATCH ${phrase} AND d.kind = ${target.kind})`;
}

const TABLE = { user: 'users', department: 'departments', file: 'files' } as const;

/**
 * The ids of the rows the index lets through, as a subquery `SELECT … AS id` to drive the search from
 * (joining the table back by primary key), so the planner starts from the few matches rather than from
 * a scope that may hold every user of a large team. Same conditions as `indexFilterSql`.
 */
export function candidateIdsSql(dialect: DialectName, target: MatchTarget, keyword: SearchKeyword): RawBuilder<{ id: string }> {
  const k = keyword.text;
  if (dialect === 'postgres') {
    const inner = { ...target, alias: 'x' };
    return sql`SELECT x.id FROM ${sql.table(TABLE[target.kind])} x WHERE ${indexFilterSql(dialect, inner, keyword)}`;
  }
  if (isShortKeyword(keyword)) {
    if (target.kind === 'file') return shortFileIdsSql(keyword);
    // UNION, not DISTINCT over IN: each side is one primary-key range, and a row found by both is one row.
    return sql`SELECT entity_id AS id FROM search_grams WHERE kind = ${target.kind} AND gram = ${`n:${k}`}
               UNION SELECT entity_id FROM search_grams WHERE kind = ${target.kind} AND gram = ${`p:${k}`}`;
  }
  const fts = FTS_TABLE[target.kind];
  const phrase = `"${k.replaceAll('"', '""')}"`;
  return sql`SELECT d.entity_id AS id FROM ${sql.table(fts)} JOIN search_docs d ON d.docid = ${sql.ref(`${fts}.rowid`)} WHERE ${sql.table(fts)} MATCH ${phrase} AND d.kind = ${target.kind}`;
}

/** SQLite: the ids of the files whose short grams hold the keyword (006-search-short-file-grams.ts). */
function shortFileIdsSql(keyword: SearchKeyword): RawBuilder<{ id: string }> {
  return sql`SELECT d.file_id AS id FROM files_short_grams JOIN search_file_docs d ON d.docid = files_short_grams.rowid
              WHERE files_short_grams MATCH ${sqliteShortFileQuery(keyword.text)}`;
}
