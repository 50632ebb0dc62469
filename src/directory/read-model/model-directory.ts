import type { Directory, FileOrder, StoreDirectory, StoredContent } from '../directory.js';
import { roleFromRank } from '../permissions.js';
import type { DirectorySearch } from '../search-port.js';
import type { Department, DepartmentPathNode, DepartmentSummary, FileRecord, FileWithGrant, PageRequest, Paged, Role, Team, User } from '../types.js';
import type { DirectoryModel } from './directory-model.js';
import type { ModelSource } from './model-source.js';
import { ModelSearch, type ActivityReads, type ModelSearchBounds } from './model-search.js';
import { byNameThenId, compareText } from './text-order.js';

export type { ModelSource } from './model-source.js';

/**
 * The Directory port answered from the read model in memory: users, teams, departments, files, grants
 * and permissions, @-mention search and the readable-file lists. What the model does not hold (stored
 * bytes, the change version, the activity that ranks searches) is asked of `rest`, the store.
 */
export class ModelDirectory implements Directory {
  private readonly search: ModelSearch;

  constructor(
    private readonly source: ModelSource,
    private readonly rest: StoreDirectory & ActivityReads,
    bounds?: ModelSearchBounds,
  ) {
    this.search = new ModelSearch(source, rest, bounds);
  }

  private get model(): DirectoryModel {
    return this.source.model;
  }

  // ---- search and the readable-file lists: from memory (model-search.ts) ----
  searchTeamMembers(query: Parameters<DirectorySearch['searchTeamMembers']>[0]) {
    return this.search.searchTeamMembers(query);
  }
  searchCollaborators(query: Parameters<DirectorySearch['searchCollaborators']>[0]) {
    return this.search.searchCollaborators(query);
  }
  searchRecentContacts(query: Parameters<DirectorySearch['searchRecentContacts']>[0]) {
    return this.search.searchRecentContacts(query);
  }
  searchDepartments(query: Parameters<DirectorySearch['searchDepartments']>[0]) {
    return this.search.searchDepartments(query);
  }
  searchReadableFiles(query: Parameters<DirectorySearch['searchReadableFiles']>[0]) {
    return this.search.searchReadableFiles(query);
  }
  listReadableFiles(userId: string, options: { limit: number; orderBy: FileOrder; types?: readonly string[] }): Promise<FileWithGrant[]> {
    return this.search.listReadableFiles(userId, options);
  }

  // ---- from the store ----
  async getFileContent(fileId: string): Promise<StoredContent | undefined> {
    return this.rest.getFileContent?.(fileId);
  }
  /**
   * The store's version and the model's generation: another process's write moves the first at its
   * commit, but the answers from memory change only when the model has taken it in (the second).
   */
  async changeVersion(): Promise<string> {
    const stored = this.rest.changeVersion ? await this.rest.changeVersion() : '';
    return `${stored}:${this.source.generation}`;
  }

  // ---- from memory ----
  async getUser(userId: string): Promise<User | undefined> {
    await this.source.current();
    return this.model.users.get(userId);
  }

  async getUsers(userIds: readonly string[]): Promise<User[]> {
    await this.source.current();
    const users: User[] = [];
    for (const id of new Set(userIds)) {
      const user = this.model.users.get(id);
      if (user) users.push(user);
    }
    return users;
  }

  async getTeam(teamId: string): Promise<Team | undefined> {
    await this.source.current();
    return this.model.teams.get(teamId);
  }

  async countTeamMembers(teamId: string): Promise<number> {
    await this.source.current();
    return this.model.activeTeamUsers(teamId).length;
  }

  async listTeamMembers(teamId: string, page: PageRequest | null): Promise<User[]> {
    await this.source.current();
    const users = this.model.activeTeamUserRecords(teamId);
    return page ? users.slice(page.offset, page.offset + page.limit) : [...users];
  }

  async getDepartment(departmentId: string): Promise<Department | undefined> {
    await this.source.current();
    return this.model.departments.get(departmentId);
  }

  async countAllDepartmentMembers(departmentId: string): Promise<number> {
    await this.source.current();
    return this.model.subtreeMemberCount(departmentId);
  }

  async listChildDepartments(teamId: string, parentId: string | null): Promise<DepartmentSummary[]> {
    await this.source.current();
    return this.model.tree.childrenOf(teamId, parentId).map((department) => ({
      id: department.id,
      name: department.name,
      allMemberCount: this.model.subtreeMemberCount(department.id),
    }));
  }

  async listDepartmentMembers(departmentId: string, page: PageRequest): Promise<Paged<User>> {
    await this.source.current();
    const users = this.model.activeMemberUsers(departmentId);
    return { total: users.length, items: users.slice(page.offset, page.offset + page.limit) };
  }

  async listDepartmentAncestors(departmentId: string): Promise<DepartmentPathNode[]> {
    await this.source.current();
    return this.model.tree.ancestorsOf(departmentId);
  }

  async listDepartmentPaths(userId: string): Promise<DepartmentPathNode[][]> {
    await this.source.current();
    const departmentIds = [...(this.model.memberships.get(userId) ?? [])].sort(compareText);
    return departmentIds.map((id) => this.model.tree.pathTo(id)).filter((path) => path.length > 0);
  }

  async getFile(fileId: string): Promise<FileRecord | undefined> {
    await this.source.current();
    return this.model.files.get(fileId);
  }

  async getFileForViewer(fileId: string, userId: string): Promise<FileWithGrant | undefined> {
    await this.source.current();
    const file = this.model.files.get(fileId);
    return file && { file, grantedRole: roleFromRank(this.model.grantedRank(fileId, userId)) };
  }

  async getGrantedRole(fileId: string, userId: string): Promise<Role | null> {
    await this.source.current();
    return roleFromRank(this.model.grantedRank(fileId, userId));
  }

  async getGrantedRoles(fileId: string, userIds: readonly string[]): Promise<Map<string, Role>> {
    await this.source.current();
    const roles = new Map<string, Role>();
    for (const userId of new Set(userIds)) {
      const role = roleFromRank(this.model.grantedRank(fileId, userId));
      if (role) roles.set(userId, role);
    }
    return roles;
  }

  async listDirectGrantees(fileId: string): Promise<Array<{ user: User; role: Role }>> {
    await this.source.current();
    const grants = this.model.grants.get(fileId);
    if (!grants) return [];
    const found: Array<{ user: User; role: Role }> = [];
    grants.principals.forEach((principal, index) => {
      if (!principal.startsWith('user:')) return;
      const user = this.model.users.get(principal.slice('user:'.length));
      const role = roleFromRank(grants.ranks[index]!);
      if (user && user.active !== false && role) found.push({ user, role });
    });
    return found.sort((a, b) => byNameThenId(a.user, b.user));
  }
}
