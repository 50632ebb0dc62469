import type { Department, DepartmentPathNode, DepartmentSummary, FileRecord, FileWithGrant, PageRequest, Paged, Role, Team, User } from './types.js';
import type { DirectorySearch } from './search-port.js';

export type { FileWithGrant } from './types.js';

/** How `GET /files` orders a user's files. */
export type FileOrder = 'created_at' | 'updated_at';

/**
 * The directory port: every fact the callbacks need about teams, departments, users and files.
 * collab-host's own SQL store implements it; a host application may pass its own implementation to
 * `buildApp` and keep every route, schema and rule (the rules live in `DirectoryService`, not here).
 * Every method is read-only; lists come back in a stable order. Lists and counts of people leave
 * deactivated users (`active: false`) out; `getUser` and `getUsers` still answer them.
 */
export interface Directory extends DirectorySearch {
  /** One user, or undefined when unknown. */
  getUser(userId: string): Promise<User | undefined>;
  /** The known users among `userIds`, in any order; unknown ids are left out. */
  getUsers(userIds: readonly string[]): Promise<User[]>;

  /** One team, or undefined when unknown. */
  getTeam(teamId: string): Promise<Team | undefined>;
  /** Number of active users whose team is `teamId`. */
  countTeamMembers(teamId: string): Promise<number>;
  /** Active users of the team ordered by name then id; one page, or all when `page` is null. */
  listTeamMembers(teamId: string, page: PageRequest | null): Promise<User[]>;

  /** One department, or undefined when unknown. */
  getDepartment(departmentId: string): Promise<Department | undefined>;
  /** Distinct active users in the department and all its descendants. */
  countAllDepartmentMembers(departmentId: string): Promise<number>;
  /**
   * Direct sub-departments of `parentId` in the team (null: the first-level departments), ordered by
   * name then id, each with its `allMemberCount`.
   */
  listChildDepartments(teamId: string, parentId: string | null): Promise<DepartmentSummary[]>;
  /** The department's direct active members ordered by name then id (one page), with their total. */
  listDepartmentMembers(departmentId: string, page: PageRequest): Promise<Paged<User>>;
  /** Ancestors of the department from the first level down, the department itself excluded. */
  listDepartmentAncestors(departmentId: string): Promise<DepartmentPathNode[]>;
  /** One path per department of the user, each from the first level down to that department. */
  listDepartmentPaths(userId: string): Promise<DepartmentPathNode[][]>;

  /** One file in any status, or undefined when unknown. */
  getFile(fileId: string): Promise<FileRecord | undefined>;
  /**
   * The strongest role that any grant gives the user on the file: a direct grant, a grant to one of the
   * user's departments or any ancestor of it, or a grant to the user's team. null when none applies.
   * The creator rule is not applied here.
   */
  getGrantedRole(fileId: string, userId: string): Promise<Role | null>;
  /**
   * Active files the user may read (created by the user, or granted any role), newest first by `orderBy`,
   * at most `limit`; optionally only of the given types.
   */
  listReadableFiles(userId: string, options: { limit: number; orderBy: FileOrder; types?: readonly string[] }): Promise<FileWithGrant[]>;
  /** The active users granted a role on the file directly (not through a department or team), with that role. */
  listDirectGrantees(fileId: string): Promise<Array<{ user: User; role: Role }>>;
  /**
   * Optional batch form of `getGrantedRole` (one query for a collaborator list): the strongest granted
   * role of each of `userIds` that has one. Without it, `getGrantedRole` is asked once per user.
   */
  getGrantedRoles?(fileId: string, userIds: readonly string[]): Promise<Map<string, Role>>;
  /**
   * Optional combined form of `getFile` and `getGrantedRole` for one viewer (every document open asks
   * both): the file in any status with the strongest role granted to the user, or undefined.
   */
  getFileForViewer?(fileId: string, userId: string): Promise<FileWithGrant | undefined>;
  /**
   * Optional: the bytes collab-host serves for a third-party file whose `hasStoredContent` is true.
   * A directory without it serves no stored content (files then need an external `downloadUrl`).
   */
  getFileContent?(fileId: string): Promise<StoredContent | undefined>;
  /**
   * Optional: a value that changes with every write to the directory (whoever makes it, another instance
   * included), read afresh on each call. Callers may keep answers while it stays the same (the event
   * intake's trust checks); without it they ask every time.
   */
  changeVersion?(): Promise<string>;
}

/** The stored bytes of a third-party file and their media type. */
export interface StoredContent {
  contentType: string;
  content: Buffer;
}

/**
 * The directory without search and the readable-file lists: what collab-host's own store answers by
 * itself (SqlDirectory), with the read model in memory answering the rest (ModelDirectory), and what
 * the event pipeline and the document flows need.
 */
export type StoreDirectory = Omit<Directory, keyof DirectorySearch | 'listReadableFiles'>;
