import type { Directory, FileOrder, StoreDirectory } from './directory.js';
import { effectiveRole, guestPermissionsFor, permissionsFor, roleRank, type LinkRole } from './permissions.js';
import { formatTime } from './time.js';
import type { DepartmentPathNode, DepartmentSummary, FileRecord, PageRequest, Paged, Permissions, Role, User } from './types.js';

/** A file with the permissions of one user on it. */
export interface FileAccess {
  file: FileRecord;
  permissions: Permissions;
}

/** A file as one user sees it: permissions plus the team the file belongs to (interface 2.2 `teamGuid`). */
export interface FileView extends FileAccess {
  /** The file's team, else its creator's team; null when neither has one. */
  teamGuid: string | null;
}

/** A collaborator entry (interface 2.4 with `isManager`). */
export interface Collaborator {
  user: User;
  /** Equals this user's `manageable` on the file. */
  isManager: boolean;
}

/** Team (interface 2.5). */
export interface TeamSummary {
  id: string;
  name: string;
  memberCount: number;
}

export interface DirectoryServiceOptions {
  /** Watermark lines for users without their own; `{name}`, `{email}`, `{id}`, `{date}` are replaced. */
  watermarkTemplate: readonly string[];
  /** The clock (tests); defaults to `Date.now`. */
  now?: () => number;
}

/** The root department of a team is addressed as `TEAM_{teamId}` (interface 4.3). */
export const TEAM_ROOT_PREFIX = 'TEAM_';

export function teamRootId(teamId: string): string {
  return `${TEAM_ROOT_PREFIX}${teamId}`;
}

/**
 * The rules of the interface over the Directory port, free of HTTP: who sees which file with which
 * permissions, which team a file belongs to, watermarks, and what part of the organisation a user may see.
 *
 * Visibility of the organisation: a user sees the structure of their own team only (the team, its
 * members, its departments, the department paths of its members). Another team's team and department
 * ids answer as unknown (undefined here, 404 on the wire), so nothing is learnt about other organisations.
 * User profiles (id, name, avatar, email) are visible to every signed-in user, since files are shared
 * across teams and the editor shows their authors.
 */
export class DirectoryService<D extends StoreDirectory = Directory> {
  private readonly now: () => number;

  constructor(
    readonly directory: D,
    private readonly options: DirectoryServiceOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  // ---- files ----

  /**
   * An active file as the user sees it, or undefined when the file is unknown or not active (a document
   * whose platform creation is pending or failed). A user with no access gets a view whose permissions
   * are all false: callers decide what of the file to show then (the callbacks show nothing).
   */
  async fileAsSeenBy(fileId: string, userId: string): Promise<FileView | undefined> {
    if (this.directory.getFileForViewer) {
      const found = await this.directory.getFileForViewer(fileId, userId);
      if (!found || found.file.status !== 'active') return undefined;
      const { file, grantedRole } = found;
      const permissions = permissionsFor(effectiveRole(file, userId, grantedRole ? [roleRank(grantedRole)] : []), file.restrictions);
      return { file, permissions, teamGuid: await this.teamGuidOf(file) };
    }
    const file = await this.directory.getFile(fileId);
    if (!file || file.status !== 'active') return undefined;
    const [permissions, teamGuid] = await Promise.all([this.permissionsOf(file, userId), this.teamGuidOf(file)]);
    return { file, permissions, teamGuid };
  }

  /**
   * A guest's one file (their share link's) as the guest sees it: the link's role capped by
   * `guestPermissionsFor`, no `teamGuid` (a guest sees no team). Any other file is undefined, as are
   * pending, failed and unknown ones.
   */
  async fileAsSeenByGuest(guest: { fileId: string; role: LinkRole }, fileId: string): Promise<FileView | undefined> {
    if (fileId !== guest.fileId) return undefined;
    const file = await this.directory.getFile(fileId);
    if (!file || file.status !== 'active') return undefined;
    return { file, permissions: guestPermissionsFor(guest.role, file.restrictions), teamGuid: null };
  }

  /** The permissions of the user on the file (contracts.md: roles, creator, restrictions). */
  async permissionsOf(file: FileRecord, userId: string): Promise<Permissions> {
    if (file.creatorId === userId) return permissionsFor('manager', file.restrictions);
    const granted = await this.directory.getGrantedRole(file.id, userId);
    return permissionsFor(effectiveRole(file, userId, granted ? [roleRank(granted)] : []), file.restrictions);
  }

  /** The file's team, else its creator's: equal to the viewer's `teamGuid` when both are in one team. */
  async teamGuidOf(file: FileRecord): Promise<string | null> {
    if (file.teamId !== null) return file.teamId;
    const creator = await this.directory.getUser(file.creatorId);
    return creator?.teamId ?? null;
  }

  /** Active files the user may read, newest first by `orderBy`, with the user's permissions on each. */
  async readableFiles(this: DirectoryService<Directory>, userId: string, options: { limit: number; orderBy: FileOrder; types?: readonly string[] }): Promise<FileAccess[]> {
    const rows = await this.directory.listReadableFiles(userId, options);
    return rows.map(({ file, grantedRole }) => ({
      file,
      permissions: permissionsFor(effectiveRole(file, userId, grantedRole ? [roleRank(grantedRole)] : []), file.restrictions),
    }));
  }

  /**
   * The creator (first) and the users granted the file directly, each once, deactivated users left out.
   * `isManager` is the user's `manageable`, so it also counts grants reaching them through a department
   * or the team.
   */
  async collaborators(file: FileRecord): Promise<Collaborator[]> {
    const [creator, grantees] = await Promise.all([this.directory.getUser(file.creatorId), this.directory.listDirectGrantees(file.id)]);
    const others = grantees.filter(({ user }) => user.id !== file.creatorId && isActive(user));
    const strongest = await this.strongestRoles(
      file.id,
      others.map(({ user }) => user.id),
    );
    const list: Collaborator[] = creator && isActive(creator) ? [{ user: creator, isManager: true }] : [];
    for (const { user, role } of others) {
      const best = maxRole(role, strongest.get(user.id) ?? null);
      list.push({ user, isManager: permissionsFor(best, file.restrictions).manageable });
    }
    return list;
  }

  private async strongestRoles(fileId: string, userIds: string[]): Promise<Map<string, Role>> {
    if (userIds.length === 0) return new Map();
    if (this.directory.getGrantedRoles) return this.directory.getGrantedRoles(fileId, userIds);
    const roles = new Map<string, Role>();
    await Promise.all(
      userIds.map(async (id) => {
        const role = await this.directory.getGrantedRole(fileId, id);
        if (role) roles.set(id, role);
      }),
    );
    return roles;
  }

  // ---- users ----

  /** The user's own lines, or the configured template filled in; `[]` hides the watermark. */
  watermarkFor(user: User): string[] {
    if (user.watermark !== null) return [...user.watermark];
    const values: Record<string, string> = {
      name: user.name,
      email: user.email ?? '',
      id: user.id,
      date: formatTime(this.now()).slice(0, 10),
    };
    return this.options.watermarkTemplate.map((line) => line.replace(/\{(name|email|id|date)\}/g, (_m, key: string) => values[key] ?? ''));
  }

  /** The users among `ids` that exist, in the order asked, each once. */
  async usersInOrder(ids: readonly string[]): Promise<User[]> {
    const found = new Map((await this.directory.getUsers(ids)).map((user) => [user.id, user]));
    const seen = new Set<string>();
    const list: User[] = [];
    for (const id of ids) {
      const user = found.get(id);
      if (user && !seen.has(id)) {
        seen.add(id);
        list.push(user);
      }
    }
    return list;
  }

  /** The team of the user with its member count; undefined when the user has none. */
  async teamOf(user: User): Promise<TeamSummary | undefined> {
    if (user.teamId === null) return undefined;
    const [team, memberCount] = await Promise.all([this.directory.getTeam(user.teamId), this.directory.countTeamMembers(user.teamId)]);
    return team && { id: team.id, name: team.name, memberCount };
  }

  /** Whether the viewer may see the structure of the team (only their own). */
  canSeeTeam(viewer: User, teamId: string | null): boolean {
    return teamId !== null && viewer.teamId === teamId;
  }

  /** Members of the viewer's own team, by name; undefined for an unknown or another team. */
  async teamMembers(viewer: User, teamId: string, page: PageRequest): Promise<User[] | undefined> {
    if (!this.canSeeTeam(viewer, teamId) || !(await this.directory.getTeam(teamId))) return undefined;
    return this.directory.listTeamMembers(teamId, page);
  }

  /** The department paths of a user of the viewer's team (or the viewer); undefined otherwise. */
  async departmentPaths(viewer: User, userId: string): Promise<DepartmentPathNode[][] | undefined> {
    const user = userId === viewer.id ? viewer : await this.directory.getUser(userId);
    if (!user || (user.id !== viewer.id && !this.canSeeTeam(viewer, user.teamId))) return undefined;
    return this.directory.listDepartmentPaths(user.id);
  }

  // ---- departments (the root of a team is `TEAM_{teamId}`) ----

  /** A department of the viewer's team, or the team's root; undefined when unknown or not visible. */
  async department(viewer: User, departmentId: string): Promise<DepartmentSummary | undefined> {
    const node = await this.resolveDepartment(viewer, departmentId);
    if (!node) return undefined;
    if (node.kind === 'root') {
      return { id: departmentId, name: node.teamName, allMemberCount: await this.directory.countTeamMembers(node.teamId) };
    }
    return { id: node.id, name: node.name, allMemberCount: await this.directory.countAllDepartmentMembers(node.id) };
  }

  /** Direct sub-departments (of the root: the first-level departments); undefined when not visible. */
  async departmentChildren(viewer: User, departmentId: string): Promise<DepartmentSummary[] | undefined> {
    const node = await this.resolveDepartment(viewer, departmentId);
    if (!node) return undefined;
    return this.directory.listChildDepartments(node.teamId, node.kind === 'root' ? null : node.id);
  }

  /** A department's direct members (of the root: every team member) with their total. */
  async departmentMembers(viewer: User, departmentId: string, page: PageRequest): Promise<Paged<User> | undefined> {
    const node = await this.resolveDepartment(viewer, departmentId);
    if (!node) return undefined;
    if (node.kind === 'department') return this.directory.listDepartmentMembers(node.id, page);
    const [total, items] = await Promise.all([this.directory.countTeamMembers(node.teamId), this.directory.listTeamMembers(node.teamId, page)]);
    return { total, items };
  }

  private async resolveDepartment(
    viewer: User,
    departmentId: string,
  ): Promise<{ kind: 'root'; teamId: string; teamName: string } | { kind: 'department'; id: string; name: string; teamId: string } | undefined> {
    if (departmentId.startsWith(TEAM_ROOT_PREFIX)) {
      const teamId = departmentId.slice(TEAM_ROOT_PREFIX.length);
      if (!this.canSeeTeam(viewer, teamId)) return undefined;
      const team = await this.directory.getTeam(teamId);
      return team && { kind: 'root', teamId: team.id, teamName: team.name };
    }
    const department = await this.directory.getDepartment(departmentId);
    if (!department || !this.canSeeTeam(viewer, department.teamId)) return undefined;
    return { kind: 'department', id: department.id, name: department.name, teamId: department.teamId };
  }
}

/** Deactivated users (`active: false`) are kept for their history but listed nowhere. */
function isActive(user: User): boolean {
  return user.active !== false;
}

function maxRole(a: Role | null, b: Role | null): Role | null {
  if (a === null) return b;
  if (b === null) return a;
  return roleRank(a) >= roleRank(b) ? a : b;
}
