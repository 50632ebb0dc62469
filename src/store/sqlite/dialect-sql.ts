import { sql } from 'kysely';
import { isShortKeyword } from '../../directory/search-keyword.js';
import type { DialectSql } from '../dialect-sql.js';
import { MATCH_TABLE } from '../search/match-kind.js';
import { sqliteShortFileQuery } from '../migrations/006-search-short-file-grams.js';

const FTS_TABLE = { user: 'users_fts', department: 'departments_fts', file: 'files_fts' } as const;

/**
 * SQLite: id lists as a JSON array read with json_each; index matches from the FTS5 trigram tables
 * (3+ characters) and the short-gram tables (1-2 characters: `search_grams` for users and departments,
 * the contentless FTS5 `files_short_grams` for files). The matches are a subquery CROSS JOINed to the
 * table by primary key, so they stay the outer loop (the planner might otherwise walk a whole team and
 * probe the matches for each member).
 */
export const sqliteSql: DialectSql = {
  name: 'sqlite',
  idList: (placeholder) => `(SELECT value FROM json_each(${placeholder}))`,
  idListValue: (ids) => JSON.stringify(ids),
  indexMatches(kind, alias, keyword) {
    const k = keyword.text;
    let ids;
    if (isShortKeyword(keyword)) {
      ids =
        kind === 'file'
          ? sql`SELECT d.file_id AS id FROM files_short_grams JOIN search_file_docs d ON d.docid = files_short_grams.rowid
                 WHERE files_short_grams MATCH ${sqliteShortFileQuery(k)}`
          : // UNION, not DISTINCT over IN: each side is one primary-key range, and a row found by both is one row.
            sql`SELECT entity_id AS id FROM search_grams WHERE kind = ${kind} AND gram = ${`n:${k}`}
                UNION SELECT entity_id FROM search_grams WHERE kind = ${kind} AND gram = ${`p:${k}`}`;
    } else {
      const fts = FTS_TABLE[kind];
      const phrase = `"${k.replaceAll('"', '""')}"`;
      ids = sql`SELECT d.entity_id AS id FROM ${sql.table(fts)} JOIN search_docs d ON d.docid = ${sql.ref(`${fts}.rowid`)}
                 WHERE ${sql.table(fts)} MATCH ${phrase} AND d.kind = ${kind}`;
    }
    return {
      from: sql`(${ids}) k CROSS JOIN ${sql.table(MATCH_TABLE[kind])} ${sql.raw(alias)}`,
      where: sql`${sql.ref(`${alias}.id`)} = k.id`,
    };
  },
};
