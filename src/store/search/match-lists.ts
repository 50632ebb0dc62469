import { sql } from 'kysely';
import type { SearchKeyword } from '../../directory/search-keyword.js';
import { SEARCH_COUNT_CAP } from '../../directory/search-page.js';
import { matchTier, type MatchTier } from '../../directory/search-ranking.js';
import type { FileList, MatchList, MatchRow } from '../cached-shapes.js';
import type { ReadContext } from '../read-context.js';
import { compareText } from './text-order.js';

/** The tier of a row for the keyword (src/directory/search-ranking.ts), or null when it does not match. */
export function tierOf(keyword: SearchKeyword, row: MatchRow): MatchTier | null {
  return matchTier(keyword, { name: row.name, email: row.email ?? null, pinyin: row.name_pinyin, initials: row.name_initials });
}

function rank<R extends MatchRow>(keyword: SearchKeyword, rows: readonly R[]): Array<R & { tier: MatchTier }> {
  const ranked: Array<R & { tier: MatchTier }> = [];
  for (const row of rows) {
    const tier = tierOf(keyword, row);
    if (tier !== null) ranked.push({ ...row, tier });
  }
  return ranked;
}

function toList(rows: readonly { id: string; tier: number }[], found: number, truncated: boolean, keep: number): MatchList {
  const kept = rows.slice(0, keep);
  return { ids: kept.map((row) => row.id), tiers: Uint8Array.from(kept, (row) => row.tier), found, truncated };
}

/**
 * Active members of the team matching the keyword (at most `scan` index matches read), ranked by tier,
 * name and id; the first SEARCH_COUNT_CAP kept. The empty keyword: every active member by name, read
 * from the (team_id, name, id) index up to the cap.
 */
export async function userList(context: ReadContext, teamId: string, keyword: SearchKeyword, scan: number): Promise<MatchList> {
  if (keyword.text === '') {
    const rows = await sql<{ id: string }>`
      SELECT id FROM users WHERE team_id = ${teamId} AND active = 1 ORDER BY name, id LIMIT ${SEARCH_COUNT_CAP + 1}`.execute(context.db);
    return toList(rows.rows.map((row) => ({ id: row.id, tier: 0 })), rows.rows.length, false, SEARCH_COUNT_CAP);
  }
  const { from, where } = context.sql.indexMatches('user', 'u', keyword);
  const rows = await sql<MatchRow>`
    SELECT u.id, u.name, u.email, u.name_pinyin, u.name_initials FROM ${from}
     WHERE ${where} AND u.team_id = ${teamId} AND u.active = 1 LIMIT ${scan + 1}`.execute(context.db);
  const ranked = rank(keyword, rows.rows.slice(0, scan)).sort((a, b) => a.tier - b.tier || compareText(a.name, b.name) || compareText(a.id, b.id));
  return toList(ranked, ranked.length, rows.rows.length > scan, SEARCH_COUNT_CAP);
}

/** Departments of the team matching the keyword, like `userList`. */
export async function departmentList(context: ReadContext, teamId: string, keyword: SearchKeyword, scan: number): Promise<MatchList> {
  if (keyword.text === '') {
    const rows = await sql<{ id: string }>`
      SELECT id FROM departments WHERE team_id = ${teamId} ORDER BY name, id LIMIT ${SEARCH_COUNT_CAP + 1}`.execute(context.db);
    return toList(rows.rows.map((row) => ({ id: row.id, tier: 0 })), rows.rows.length, false, SEARCH_COUNT_CAP);
  }
  const { from, where } = context.sql.indexMatches('department', 'd', keyword);
  const rows = await sql<MatchRow>`
    SELECT d.id, d.name, d.name_pinyin, d.name_initials FROM ${from} WHERE ${where} AND d.team_id = ${teamId} LIMIT ${scan + 1}`.execute(context.db);
  const ranked = rank(keyword, rows.rows.slice(0, scan)).sort((a, b) => a.tier - b.tier || compareText(a.name, b.name) || compareText(a.id, b.id));
  return toList(ranked, ranked.length, rows.rows.length > scan, SEARCH_COUNT_CAP);
}

/**
 * Active files matching the keyword (at most `scan` index matches read), every one kept, ranked by
 * tier, `updatedAt` (newest first), name and id. The empty keyword: the `scan` newest active files.
 * Who may read which is decided per searcher (readable-files.ts).
 */
export async function fileList(context: ReadContext, keyword: SearchKeyword, scan: number): Promise<FileList> {
  let ranked: Array<{ id: string; tier: number }>;
  let truncated: boolean;
  if (keyword.text === '') {
    const rows = await sql<{ id: string }>`
      SELECT id FROM files WHERE status = 'active' ORDER BY updated_at DESC, name, id LIMIT ${scan + 1}`.execute(context.db);
    truncated = rows.rows.length > scan;
    ranked = rows.rows.slice(0, scan).map((row) => ({ id: row.id, tier: 0 }));
  } else {
    const { from, where } = context.sql.indexMatches('file', 'f', keyword);
    const rows = await sql<MatchRow & { updated_at: string }>`
      SELECT f.id, f.name, f.name_pinyin, f.name_initials, f.updated_at FROM ${from}
       WHERE ${where} AND f.status = 'active' LIMIT ${scan + 1}`.execute(context.db);
    truncated = rows.rows.length > scan;
    ranked = rank(keyword, rows.rows.slice(0, scan)).sort(
      (a, b) => a.tier - b.tier || compareText(b.updated_at, a.updated_at) || compareText(a.name, b.name) || compareText(a.id, b.id),
    );
  }
  const list = toList(ranked, ranked.length, truncated, ranked.length);
  let positions: Map<string, number> | undefined;
  return {
    ...list,
    positionOf(fileId) {
      positions ??= new Map(list.ids.map((id, index) => [id, index]));
      return positions.get(fileId);
    },
    intersections: new Map(),
    intersectionsOf: -1,
  };
}
