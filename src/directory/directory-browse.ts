import { nameKeys } from './search-keys.js';
import { normaliseKeyword, type SearchKeyword } from './search-keyword.js';
import { rankMatches, type MatchFields } from './search-ranking.js';
import type { Restrictions, Role } from './types.js';

/**
 * The operator console's directory search: every team, department, user or file (not one viewer's
 * scope, as @-search is), matched and ranked by the same rules as @-search (search-ranking.ts: name,
 * e-mail local part, full pinyin and initials, so `zs` finds 张三).
 */

export type BrowseKind = 'team' | 'department' | 'user' | 'file';
export const BROWSE_KINDS: readonly BrowseKind[] = ['team', 'department', 'user', 'file'];

export interface TeamItem {
  id: string;
  name: string;
}
export interface DepartmentItem {
  id: string;
  name: string;
  teamId: string;
  parentId: string | null;
}
export interface UserItem {
  id: string;
  name: string;
  email: string | null;
  teamId: string | null;
  active: boolean;
  departments: Array<{ id: string; name: string }>;
}
export interface FileItem {
  id: string;
  name: string;
  type: string;
  creatorId: string;
  teamId: string | null;
  status: string;
  updatedAt: string;
  restrictions: Restrictions;
  /** The grants on the file as the snapshot writes them, with the principal's name. */
  sharing: Array<{ principal: string; principalName: string | null; role: Role }>;
}
export interface BrowseItems {
  team: TeamItem;
  department: DepartmentItem;
  user: UserItem;
  file: FileItem;
}

/** A candidate row: its id and what it is matched on (`pinyin`/`initials` may be absent: computed here). */
export interface BrowseCandidate {
  id: string;
  name: string;
  email?: string | null;
  pinyin?: string;
  initials?: string;
}

/** The directory at a glance: counts, teams and the department tree. */
export interface DirectorySummary {
  counts: { teams: number; departments: number; users: number; activeUsers: number; files: number };
  teams: Array<TeamItem & { memberCount: number }>;
  /** Every department (at most SUMMARY_DEPARTMENT_CAP, by name) with its direct member count. */
  departments: Array<DepartmentItem & { memberCount: number }>;
  /** More departments than SUMMARY_DEPARTMENT_CAP exist. */
  departmentsTruncated: boolean;
}

export const SUMMARY_DEPARTMENT_CAP = 5000;

/** What the console's directory pages need from storage (src/store/directory-reads/directory-browse.ts). */
export interface DirectoryBrowseSource {
  /** Counts, teams with member counts, departments with direct member counts (see DirectorySummary). */
  summary(): Promise<DirectorySummary>;
  /**
   * Rows of the kind that may match the keyword (every row that matches, possibly more), ordered by name
   * then id, at most `cap`; `truncated` when there were more.
   */
  candidates(kind: BrowseKind, keyword: SearchKeyword, cap: number): Promise<{ rows: BrowseCandidate[]; truncated: boolean }>;
  /** The full items of the given ids (any order; unknown ids left out). */
  items<K extends BrowseKind>(kind: K, ids: readonly string[]): Promise<Array<BrowseItems[K]>>;
}

export interface BrowseResult<K extends BrowseKind> {
  /** Matches among the candidates read. */
  count: number;
  /** More rows than CANDIDATE_CAP could match: the ranking covers the first CANDIDATE_CAP by name; type more. */
  truncated: boolean;
  items: Array<BrowseItems[K]>;
}

/** How many candidate rows one search reads at most. */
export const CANDIDATE_CAP = 5000;

export async function browseDirectory<K extends BrowseKind>(source: DirectoryBrowseSource, request: { kind: K; keyword: string; limit: number }): Promise<BrowseResult<K>> {
  const keyword = normaliseKeyword(request.keyword);
  const { rows, truncated } = await source.candidates(request.kind, keyword, CANDIDATE_CAP);
  const ranked = rankMatches(keyword, rows, fieldsOf, { offset: 0, limit: request.limit });
  const items = await source.items(
    request.kind,
    ranked.items.map((row) => row.id),
  );
  const byId = new Map(items.map((item) => [item.id, item]));
  return { count: ranked.total, truncated, items: ranked.items.flatMap((row) => byId.get(row.id) ?? []) };
}

function fieldsOf(row: BrowseCandidate): MatchFields {
  const keys = row.pinyin === undefined || row.initials === undefined ? nameKeys(row.name) : { pinyin: row.pinyin, initials: row.initials };
  return { name: row.name, email: row.email ?? null, ...keys };
}
