import type { Directory, FileWithGrant } from './directory.js';
import type { FileAccess } from './directory-service.js';
import { effectiveRole, permissionsFor, roleRank } from './permissions.js';
import { parseSearchKinds, type SearchKind } from './search-kinds.js';
import { EMPTY_KEYWORD, normaliseKeyword } from './search-keyword.js';
import { emptySearchPage, pageRows, searchPage, searchPaging, type SearchPage } from './search-page.js';
import type { DepartmentHit, SearchHits } from './search-port.js';
import type { FileRecord, User } from './types.js';

/** A POST /search request as the route validated it (interface 4.5). */
export interface MentionSearchRequest {
  type: string;
  keyword?: string;
  fileId?: string;
  page?: number;
  pageSize?: number;
}

/** One page wrapper per response key; kinds not asked for are empty wrappers. */
export interface MentionSearchResults {
  files: SearchPage<FileAccess>;
  recentUsers: SearchPage<User>;
  collaborators: SearchPage<User>;
  teamMembers: SearchPage<User>;
  department: SearchPage<DepartmentHit>;
}

/** How many entries the two recent lists (GET /search/users/recent, /search/files/recent) return. */
export const RECENT_LIST_SIZE = 20;

/**
 * @-mention search over the Directory port, free of HTTP: which kinds to search, the viewer's scope for
 * each (their team, a file they may read), the permissions of file results, and the page arithmetic.
 */
export class MentionSearch {
  constructor(private readonly directory: Directory) {}

  async search(viewer: User, request: MentionSearchRequest): Promise<MentionSearchResults> {
    const kinds = parseSearchKinds(request.type);
    const paging = searchPaging(request.page, request.pageSize);
    const keyword = normaliseKeyword(request.keyword ?? '');
    const page = pageRows(paging);
    const base = { viewerId: viewer.id, keyword, page };
    // Collaborators and the file's people are offered only from a file the viewer may read.
    const fileId = (kinds.has('collaborator') || kinds.has('recent_contact')) && request.fileId ? await this.readableFileId(viewer, request.fileId) : null;
    const teamId = viewer.teamId;

    const run = <T>(kind: SearchKind, search: () => Promise<SearchHits<T>>): Promise<SearchPage<T>> =>
      kinds.has(kind) ? search().then((found) => searchPage(paging, found.total, found.items, found.capped)) : Promise.resolve(emptySearchPage<T>(paging));
    const none = <T>(): Promise<SearchHits<T>> => Promise.resolve({ total: 0, items: [] });

    const [files, recentUsers, collaborators, teamMembers, department] = await Promise.all([
      run('file_name', () => this.readableFiles(viewer, base)),
      run('recent_contact', () => this.directory.searchRecentContacts({ ...base, fileId })),
      run('collaborator', () => (fileId === null ? none<User>() : this.directory.searchCollaborators({ ...base, fileId }))),
      run('team_member', () => (teamId === null ? none<User>() : this.directory.searchTeamMembers({ ...base, teamId }))),
      run('department', () => (teamId === null ? none<DepartmentHit>() : this.directory.searchDepartments({ ...base, teamId }))),
    ]);
    return { files, recentUsers, collaborators, teamMembers, department };
  }

  /** GET /search/users/recent: the users most related to the viewer and the file (see the port). */
  async recentUsers(viewer: User, fileId: string): Promise<User[]> {
    const readable = await this.readableFileId(viewer, fileId);
    const found = await this.directory.searchRecentContacts({ viewerId: viewer.id, keyword: EMPTY_KEYWORD, page: { offset: 0, limit: RECENT_LIST_SIZE }, fileId: readable });
    return found.items;
  }

  /**
   * GET /search/files/recent: the files the viewer worked on most recently and may still read, then the
   * most recently updated files they may read; the file asked from is left out.
   */
  async recentFiles(viewer: User, fileId: string): Promise<FileAccess[]> {
    const found = await this.readableFiles(viewer, {
      viewerId: viewer.id,
      keyword: EMPTY_KEYWORD,
      page: { offset: 0, limit: RECENT_LIST_SIZE },
      excludeFileId: fileId,
    });
    return found.items;
  }

  private async readableFiles(viewer: User, query: Parameters<Directory['searchReadableFiles']>[0]): Promise<SearchHits<FileAccess>> {
    const found = await this.directory.searchReadableFiles(query);
    const items = found.items
      .map(({ file, grantedRole }) => ({ file, permissions: permissionsFor(effectiveRole(file, viewer.id, grantedRole ? [roleRank(grantedRole)] : []), file.restrictions) }))
      // The port promises readable files only; a directory that breaks the promise still leaks nothing.
      .filter((access) => access.permissions.readable);
    return { total: found.total, items, ...(found.capped ? { capped: true } : {}) };
  }

  /** The file's id when it is active and the viewer may read it, else null. */
  private async readableFileId(viewer: User, fileId: string): Promise<string | null> {
    // One read where the directory offers it (a round trip less on PostgreSQL).
    const found = this.directory.getFileForViewer ? await this.directory.getFileForViewer(fileId, viewer.id) : await this.fileWithGrant(fileId, viewer.id);
    if (!found || found.file.status !== 'active') return null;
    const { file, grantedRole } = found;
    const role = effectiveRole(file, viewer.id, grantedRole ? [roleRank(grantedRole)] : []);
    return permissionsFor(role, file.restrictions).readable ? file.id : null;
  }

  private async fileWithGrant(fileId: string, viewerId: string): Promise<FileWithGrant | undefined> {
    const file: FileRecord | undefined = await this.directory.getFile(fileId);
    if (!file || file.status !== 'active') return undefined;
    return { file, grantedRole: file.creatorId === viewerId ? null : await this.directory.getGrantedRole(file.id, viewerId) };
  }
}
