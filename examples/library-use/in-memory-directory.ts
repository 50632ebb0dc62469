import { roleFromRank, roleRank, nameKeys, rankMatches } from '../../src/index.js';
import type {
  Directory,
  FileOrder,
  FileWithGrant,
  Department,
  DepartmentPathNode,
  DepartmentSummary,
  FileRecord,
  PageRequest,
  Paged,
  Role,
  Team,
  User,
  DepartmentHit,
  SearchQuery,
} from '../../src/index.js';

/**
 * A host application's own directory, here plain objects in memory: the shape a host would build from
 * its HR system or its own database. collab-host keeps every route, schema and permission rule; the
 * host only answers the questions of the `Directory` port.
 *
 * Written for clarity, not scale: lists are filtered in memory. A real host answers each method with one
 * indexed query (see src/store/directory-reads/sql-directory.ts).
 */
export interface HostCompany {
  teams: Team[];
  departments: Department[];
  users: Array<Omit<User, 'watermark'> & { departmentIds: string[]; watermark?: string[] }>;
  files: Array<
    Pick<FileRecord, 'id' | 'name' | 'type' | 'creatorId' | 'createdAt' | 'updatedAt'> & {
      teamId?: string;
      ext?: string;
      downloadUrl?: string;
      /** `user:ID`, `department:ID` or `team:ID` with a role. */
      sharing?: Array<{ principal: string; role: Role }>;
    }
  >;
}

const byNameThenId = (a: { name: string; id: string }, b: { name: string; id: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export class InMemoryDirectory implements Directory {
  constructor(private readonly company: HostCompany) {}

  async getUser(userId: string): Promise<User | undefined> {
    const user = this.company.users.find((candidate) => candidate.id === userId);
    return user && toUser(user);
  }

  async getUsers(userIds: readonly string[]): Promise<User[]> {
    const wanted = new Set(userIds);
    return this.company.users.filter((user) => wanted.has(user.id)).map(toUser);
  }

  async getTeam(teamId: string): Promise<Team | undefined> {
    return this.company.teams.find((team) => team.id === teamId);
  }

  async countTeamMembers(teamId: string): Promise<number> {
    return this.company.users.filter((user) => user.teamId === teamId).length;
  }

  async listTeamMembers(teamId: string, page: PageRequest | null): Promise<User[]> {
    const members = this.company.users
      .filter((user) => user.teamId === teamId)
      .map(toUser)
      .sort(byNameThenId);
    return page ? members.slice(page.offset, page.offset + page.limit) : members;
  }

  async getDepartment(departmentId: string): Promise<Department | undefined> {
    return this.company.departments.find((department) => department.id === departmentId);
  }

  async countAllDepartmentMembers(departmentId: string): Promise<number> {
    return this.company.users.filter((user) => user.departmentIds.some((id) => this.ancestry(id).includes(departmentId))).length;
  }

  async listChildDepartments(teamId: string, parentId: string | null): Promise<DepartmentSummary[]> {
    const children = this.company.departments.filter((d) => d.teamId === teamId && d.parentId === parentId).sort(byNameThenId);
    return Promise.all(children.map(async (d) => ({ id: d.id, name: d.name, allMemberCount: await this.countAllDepartmentMembers(d.id) })));
  }

  async listDepartmentMembers(departmentId: string, page: PageRequest): Promise<Paged<User>> {
    const members = this.company.users
      .filter((user) => user.departmentIds.includes(departmentId))
      .map(toUser)
      .sort(byNameThenId);
    return { total: members.length, items: members.slice(page.offset, page.offset + page.limit) };
  }

  async listDepartmentAncestors(departmentId: string): Promise<DepartmentPathNode[]> {
    return this.path(departmentId).slice(0, -1);
  }

  async listDepartmentPaths(userId: string): Promise<DepartmentPathNode[][]> {
    const user = this.company.users.find((candidate) => candidate.id === userId);
    return (user?.departmentIds ?? []).map((id) => this.path(id));
  }

  async getFile(fileId: string): Promise<FileRecord | undefined> {
    const file = this.company.files.find((candidate) => candidate.id === fileId);
    return file && this.toFile(file);
  }

  async getGrantedRole(fileId: string, userId: string): Promise<Role | null> {
    const file = this.company.files.find((candidate) => candidate.id === fileId);
    const user = this.company.users.find((candidate) => candidate.id === userId);
    if (!file || !user) return null;
    const principals = new Set([`user:${user.id}`, ...(user.teamId ? [`team:${user.teamId}`] : [])]);
    for (const id of user.departmentIds) for (const ancestor of this.ancestry(id)) principals.add(`department:${ancestor}`);
    const ranks = (file.sharing ?? []).filter((grant) => principals.has(grant.principal)).map((grant) => roleRank(grant.role));
    return ranks.length === 0 ? null : roleFromRank(Math.max(...ranks));
  }

  async listReadableFiles(userId: string, options: { limit: number; orderBy: FileOrder; types?: readonly string[] }): Promise<FileWithGrant[]> {
    const key = options.orderBy === 'created_at' ? 'createdAt' : 'updatedAt';
    const rows: FileWithGrant[] = [];
    for (const file of this.company.files) {
      if (options.types?.length && !options.types.includes(file.type)) continue;
      const grantedRole = await this.getGrantedRole(file.id, userId);
      if (grantedRole !== null || file.creatorId === userId) rows.push({ file: this.toFile(file), grantedRole });
    }
    rows.sort((a, b) => (a.file[key] < b.file[key] ? 1 : a.file[key] > b.file[key] ? -1 : a.file.id < b.file.id ? 1 : -1));
    return rows.slice(0, options.limit);
  }

  async listDirectGrantees(fileId: string): Promise<Array<{ user: User; role: Role }>> {
    const file = this.company.files.find((candidate) => candidate.id === fileId);
    const direct = (file?.sharing ?? []).filter((grant) => grant.principal.startsWith('user:'));
    return direct.flatMap(({ principal, role }) => {
      const user = this.company.users.find((candidate) => `user:${candidate.id}` === principal);
      return user ? [{ user: toUser(user), role }] : [];
    });
  }

  // @-mention search: the shared matching and ranking rules over plain lists. This host keeps no activity
  // history, so ties go by name (files: newest update first); a real host answers with indexed queries.
  async searchTeamMembers(query: SearchQuery & { teamId: string }): Promise<Paged<User>> {
    const members = this.company.users
      .filter((user) => user.teamId === query.teamId)
      .map(toUser)
      .sort(byNameThenId);
    return rankMatches(query.keyword, members, userMatchFields, query.page);
  }

  async searchCollaborators(query: SearchQuery & { fileId: string }): Promise<Paged<User>> {
    return rankMatches(query.keyword, await this.collaboratorsOf(query.fileId), userMatchFields, query.page);
  }

  async searchRecentContacts(query: SearchQuery & { fileId: string | null }): Promise<Paged<User>> {
    const viewer = this.company.users.find((user) => user.id === query.viewerId);
    const colleagues = this.company.users
      .filter((user) => user.departmentIds.some((id) => viewer?.departmentIds.includes(id)))
      .map(toUser)
      .sort(byNameThenId);
    const collaborators = query.fileId === null ? [] : await this.collaboratorsOf(query.fileId);
    const seen = new Set([query.viewerId]);
    const related = [...collaborators, ...colleagues].filter((user) => !seen.has(user.id) && seen.add(user.id));
    return rankMatches(query.keyword, related, userMatchFields, query.page);
  }

  async searchDepartments(query: SearchQuery & { teamId: string }): Promise<Paged<DepartmentHit>> {
    const departments = this.company.departments.filter((d) => d.teamId === query.teamId).sort(byNameThenId);
    const found = rankMatches(query.keyword, departments, (d) => ({ name: d.name, ...nameKeys(d.name) }), query.page);
    const items = await Promise.all(
      found.items.map(async (d) => ({
        id: d.id,
        name: d.name,
        allMemberCount: await this.countAllDepartmentMembers(d.id),
        parentDepartments: await this.listDepartmentAncestors(d.id),
      })),
    );
    return { total: found.total, items };
  }

  async searchReadableFiles(query: SearchQuery & { excludeFileId?: string }): Promise<Paged<FileWithGrant>> {
    const readable = await this.listReadableFiles(query.viewerId, { limit: Number.MAX_SAFE_INTEGER, orderBy: 'updated_at' });
    const files = readable.filter(({ file }) => file.id !== query.excludeFileId);
    return rankMatches(query.keyword, files, ({ file }) => ({ name: file.name, ...nameKeys(file.name) }), query.page);
  }

  /** The creator, then the users granted the file directly. */
  private async collaboratorsOf(fileId: string): Promise<User[]> {
    const file = this.company.files.find((candidate) => candidate.id === fileId);
    if (!file) return [];
    const creator = await this.getUser(file.creatorId);
    const grantees = (await this.listDirectGrantees(fileId)).map(({ user }) => user).filter((user) => user.id !== file.creatorId);
    return [...(creator ? [creator] : []), ...grantees];
  }

  /** The department and its ancestors, itself first. */
  private ancestry(departmentId: string): string[] {
    return this.path(departmentId)
      .map((node) => node.id)
      .reverse();
  }

  /** From the first level down to the department. */
  private path(departmentId: string): DepartmentPathNode[] {
    const nodes: DepartmentPathNode[] = [];
    let current = this.company.departments.find((d) => d.id === departmentId);
    while (current && nodes.length < 64) {
      nodes.unshift({ id: current.id, name: current.name });
      const parentId = current.parentId;
      current = parentId === null ? undefined : this.company.departments.find((d) => d.id === parentId);
    }
    return nodes;
  }

  private toFile(file: HostCompany['files'][number]): FileRecord {
    return {
      ...file,
      teamId: file.teamId ?? null,
      views: null,
      ext: file.ext ?? null,
      downloadUrl: file.downloadUrl ?? null,
      fullUrl: null,
      hasStoredContent: false,
      restrictions: { copy: true, export: true },
      status: 'active',
    };
  }
}

function userMatchFields(user: User) {
  return { name: user.name, email: user.email, ...nameKeys(user.name) };
}

function toUser(user: HostCompany['users'][number]): User {
  return { id: user.id, name: user.name, email: user.email, avatar: user.avatar, teamId: user.teamId, watermark: user.watermark ?? null };
}
