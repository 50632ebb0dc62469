import type { SearchKeyword } from './search-keyword.js';
import type { DepartmentPathNode, DepartmentSummary, FileWithGrant, PageRequest, Paged, User } from './types.js';

/** What every search of the port is given. */
export interface SearchQuery {
  /** The user searching: results are ranked (and files filtered) for them. */
  viewerId: string;
  /** Normalised with `normaliseKeyword`; '' asks for the kind's most relevant items. */
  keyword: SearchKeyword;
  page: PageRequest;
}

/** A department search result (interface 4.5, 4.6). */
export interface DepartmentHit extends DepartmentSummary {
  /** Ancestors from the first level down; the team level left out; [] for a first-level department. */
  parentDepartments: DepartmentPathNode[];
}

/**
 * One page of a search and the number of matches. `capped`: there may be more matches than `total`
 * (a count stopped at SEARCH_COUNT_CAP, or a keyword so common that the search read only its first
 * matches, docs/search.md "Bounds"); the page wrapper then says `countCapped: true`.
 */
export interface SearchHits<T> extends Paged<T> {
  capped?: boolean;
}

/** The activity rows per source a recent list reads (newest first): a bound, never a scan of history. */
export const RECENT_ACTIVITY_ROWS = 500;
/** Same-department fallback candidates of the recent contacts. */
export const DEPARTMENT_FALLBACK_USERS = 50;

/**
 * The search half of the Directory port (@-mention search, interface 4.4 and 4.5). Matching and the
 * tiers are those of src/directory/search-ranking.ts (`matchTier`); every method returns one page of
 * the ranked matches and the total count of matches, so the caller's page arithmetic is exact. The count
 * may stop at SEARCH_COUNT_CAP (src/directory/search-page.ts; the caller caps it anyway), and a page
 * starting past the cap is never asked for (its `limit` is 0).
 * "Last contact" of a user, below, is the latest activity in which the viewer mentioned them or they
 * mentioned the viewer (activity kind `mention`, `related_user_id`).
 * Every kind that lists people leaves deactivated users (`active: false`) out.
 */
export interface DirectorySearch {
  /** Members of the team. Order: tier, last contact (newest first, none last), name, id. */
  searchTeamMembers(query: SearchQuery & { teamId: string }): Promise<SearchHits<User>>;
  /**
   * The file's collaborators: its creator and the users granted it directly (the same people as
   * `GET /files/{fileId}/collaborators`). Order: tier, last contact, name, id. The caller has checked
   * that the viewer may read the file.
   */
  searchCollaborators(query: SearchQuery & { fileId: string }): Promise<SearchHits<User>>;
  /**
   * Users related to the viewer and the file, the viewer left out: whom the viewer mentioned or was
   * mentioned by, who was active on the file (each from the newest RECENT_ACTIVITY_ROWS rows), the file's
   * collaborators, then the members of the viewer's departments (at most DEPARTMENT_FALLBACK_USERS) so
   * the list is useful before there is any history. Order: tier, latest of those activities (newest
   * first, none last), then collaborators before department members, name, id. `fileId` null: no file
   * context (unknown, or not readable by the viewer).
   */
  searchRecentContacts(query: SearchQuery & { fileId: string | null }): Promise<SearchHits<User>>;
  /**
   * Departments of the team with their member count (active members) and ancestors. Order: tier, the viewer's own
   * departments and their ancestors first, name, id.
   */
  searchDepartments(query: SearchQuery & { teamId: string }): Promise<SearchHits<DepartmentHit>>;
  /**
   * Active files the viewer may read (creator, or a grant to the viewer, one of their departments or its
   * ancestors, or their team), filtered before paging. Order: tier, the viewer's latest activity on the
   * file (newest first, none last), the file's `updatedAt` (newest first), name, id.
   */
  searchReadableFiles(query: SearchQuery & { excludeFileId?: string }): Promise<SearchHits<FileWithGrant>>;
}
