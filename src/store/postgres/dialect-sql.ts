import { sql, type RawBuilder } from 'kysely';
import { isShortKeyword } from '../../directory/search-keyword.js';
import type { DialectSql } from '../dialect-sql.js';
import { MATCH_TABLE } from '../search/match-kind.js';
import { PG_LOCAL_PART, pgGramsExpression } from '../migrations/003-search.js';

/**
 * PostgreSQL: id lists as a text[] parameter; index matches as conditions on the table itself, written
 * with exactly the indexed expressions of migrations 003 and 006 (or the planner ignores the indexes),
 * which it serves with a bitmap scan: `LIKE '%k%'` over pg_trgm GIN indexes for 3+ characters, an
 * array overlap with the short-gram GIN index for 1-2 characters.
 */
export const postgresSql: DialectSql = {
  name: 'postgres',
  idList: (placeholder) => `(SELECT unnest(${placeholder}::text[]))`,
  idListValue: (ids) => [...ids],
  indexMatches(kind, alias, keyword) {
    const k = keyword.text;
    const from = sql`${sql.table(MATCH_TABLE[kind])} ${sql.raw(alias)}`;
    if (isShortKeyword(keyword)) {
      return { from, where: sql`${sql.raw(pgGramsExpression(alias, kind === 'user'))} && ARRAY[${`n:${k}`}, ${`p:${k}`}]::text[]` };
    }
    const pattern = `%${k.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const columns: RawBuilder<string>[] = [sql.raw(`lower(${alias}.name)`), sql.raw(`${alias}.name_pinyin`), sql.raw(`${alias}.name_initials`)];
    if (kind === 'user') columns.push(sql.raw(PG_LOCAL_PART(alias)));
    return { from, where: sql`(${sql.join(columns.map((column) => sql`${column} LIKE ${pattern}`), sql` OR `)})` };
  },
};
