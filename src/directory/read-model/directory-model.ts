import type { Department, FileRecord, Team, User } from '../types.js';
import { DepartmentTree } from './department-tree.js';
import { FileGrants, type HeldGrant } from './file-grants.js';
import type { NameKeys } from '../search-keys.js';
import { SearchState } from './search-state.js';
import { SubtreeCounts } from './subtree-counts.js';
import { byNameThenId } from './text-order.js';
import { ascending } from './number-order.js';

/** Users whose principals are remembered at most (about 1 MB). */
const PRINCIPALS_REMEMBERED = 10_000;

/**
 * The directory in memory (one per serving process): teams, departments, users and their memberships,
 * files and their grants, as the store's rows say, with what the callbacks derive from them (children,
 * ancestors, member lists and counts) computed on first use, then dropped by the writes that change them
 * or, for the lists of people in order and the member counts, kept by them.
 * The store side fills and follows it (src/store/change-feed/read-model/); src/directory/read-model/model-directory.ts
 * answers the Directory port from it. Nothing here reads a database.
 */
export class DirectoryModel {
  readonly teams = new Map<string, Team>();
  readonly departments = new Map<string, Department>();
  readonly users = new Map<string, User>();
  /** Per user: their departments (the rows of user_departments, any department id). */
  readonly memberships = new Map<string, readonly string[]>();
  readonly files = new Map<string, FileRecord>();
  /** Files whose bytes collab-host holds (a row in file_contents). */
  readonly contents = new Set<string>();
  readonly grants = new Map<string, FileGrants>();
  readonly tree = new DepartmentTree(this.departments);
  /** Per principal (`kind:id`): the files granted to it, with the rank. */
  readonly filesOfPrincipal = new Map<string, Map<string, number>>();
  /** Per user: the files they created (any status). */
  readonly createdFiles = new Map<string, Set<string>>();
  /** Search indexes and pinyin keys (built on first use). */
  readonly search: SearchState = new SearchState(this);

  /** Per department: its members' ids (any department id; active or not). */
  private readonly members = new Map<string, Set<string>>();
  /** Per team: its users' ids (active or not). */
  private readonly teamUsers = new Map<string, Set<string>>();
  private readonly sortedMembers = new Map<string, SortedPeople>();
  private readonly sortedTeamUsers = new Map<string, SortedPeople>();
  /**
   * Member counts of every department's subtree: counted for all departments at once on first use (a count
   * asked one department at a time walked its whole subtree, tens of milliseconds for a first-level
   * department of a large company, again after every write of a user), then kept by the user and
   * membership setters; dropped by a change of a department.
   */
  private subtreeCounts: SubtreeCounts | undefined;
  /** The one copy of each principal key (`kind:id`), shared by every file granted to it. */
  private readonly principalKeys = new Map<string, string>();
  /** A whole load is under way (`beginLoad`): the setters skip dropping derived facts, `endLoad` drops them all. */
  private loading = false;
  /** Per user, the principals of `principalsOf` (bounded; dropped by a change of the user, their departments or the tree). */
  private readonly principalsByUser = new Map<string, readonly string[]>();

  setTeam(id: string, team: Team | undefined): void {
    if (team) this.teams.set(id, team);
    else this.teams.delete(id);
  }

  setDepartment(id: string, department: Department | undefined, keys?: NameKeys): void {
    this.search.departmentChanged(id, this.departments.get(id), department, keys);
    if (department) this.departments.set(id, department);
    else this.departments.delete(id);
    if (this.loading) return;
    this.tree.invalidate();
    this.principalsByUser.clear();
    this.subtreeCounts = undefined;
  }

  setUser(id: string, user: User | undefined, keys?: NameKeys): void {
    const before = this.users.get(id);
    this.search.userChanged(id, before, user, keys);
    if (before?.teamId) this.unlink(this.teamUsers, this.sortedTeamUsers, before.teamId, id);
    if (user) this.users.set(id, user);
    else this.users.delete(id);
    if (user?.teamId) this.link(this.teamUsers, this.sortedTeamUsers, user.teamId, id);
    if (this.loading) return;
    this.principalsByUser.delete(id);
    const departmentIds = this.memberships.get(id) ?? [];
    for (const departmentId of departmentIds) noteChange(this.sortedMembers, departmentId, id, before);
    if (isActive(before) !== isActive(user)) this.subtreeCounts?.add(departmentIds, isActive(user) ? 1 : -1);
  }

  setMemberships(userId: string, departmentIds: readonly string[]): void {
    const before = this.memberships.get(userId) ?? [];
    for (const departmentId of before) this.unlink(this.members, this.sortedMembers, departmentId, userId);
    if (departmentIds.length > 0) this.memberships.set(userId, departmentIds);
    else this.memberships.delete(userId);
    for (const departmentId of departmentIds) this.link(this.members, this.sortedMembers, departmentId, userId);
    if (this.loading) return;
    this.principalsByUser.delete(userId);
    if (isActive(this.users.get(userId))) {
      this.subtreeCounts?.add(before, -1);
      this.subtreeCounts?.add(departmentIds, 1);
    }
  }

  /** `file.hasStoredContent` is the model's (`setContent`): a file that says otherwise is copied. */
  setFile(id: string, file: (Omit<FileRecord, 'hasStoredContent'> & { hasStoredContent?: boolean }) | undefined, keys?: NameKeys): void {
    const before = this.files.get(id);
    const stored = this.contents.has(id);
    const after = file && (file.hasStoredContent === stored ? (file as FileRecord) : { ...file, hasStoredContent: stored });
    if (!this.loading && before?.creatorId !== after?.creatorId) {
      if (before) this.search.readable.forget(`creator:${before.creatorId}`);
      if (after) this.search.readable.forget(`creator:${after.creatorId}`);
    }
    if (before && before.creatorId !== after?.creatorId) {
      const created = this.createdFiles.get(before.creatorId);
      created?.delete(id);
      if (created?.size === 0) this.createdFiles.delete(before.creatorId);
    }
    if (after) {
      this.files.set(id, after);
      const created = this.createdFiles.get(after.creatorId);
      if (created) created.add(id);
      else this.createdFiles.set(after.creatorId, new Set([id]));
    } else this.files.delete(id);
    this.search.fileChanged(id, before, after, keys);
  }

  setContent(fileId: string, stored: boolean): void {
    if (stored) this.contents.add(fileId);
    else this.contents.delete(fileId);
    const file = this.files.get(fileId);
    if (file && file.hasStoredContent !== stored) this.files.set(fileId, { ...file, hasStoredContent: stored });
  }

  setGrants(fileId: string, grants: readonly HeldGrant[]): void {
    for (const principal of this.grants.get(fileId)?.principals ?? []) {
      this.search.readable.forget(principal);
      const files = this.filesOfPrincipal.get(principal);
      files?.delete(fileId);
      if (files?.size === 0) this.filesOfPrincipal.delete(principal);
    }
    const principals = grants.map((grant) => this.intern(grant.principal));
    this.putGrants(
      fileId,
      principals,
      grants.map((grant) => grant.rank),
    );
  }

  /**
   * The grants of a file that has none in the model yet (a whole load, which adds them after `endLoad`
   * while its name indexes are built elsewhere): `principals[i]` (from `principalKey`) holds `ranks[i]`.
   * Both arrays are kept.
   */
  addGrants(fileId: string, principals: string[], ranks: readonly number[]): void {
    // The file's own id string, not the grant row's copy: one string per file however many grants.
    this.putGrants(this.files.get(fileId)?.id ?? fileId, principals, ranks, true);
  }

  /** `whole`: the file's grants of a whole load (one per principal, each recorded as it is). */
  private putGrants(fileId: string, principals: readonly string[], ranks: readonly number[], whole = false): void {
    if (principals.length === 0) this.grants.delete(fileId);
    else this.grants.set(fileId, new FileGrants(principals, ranks));
    for (let index = 0; index < principals.length; index += 1) {
      const principal = principals[index]!;
      const rank = ranks[index]!;
      if (!this.loading) this.search.readable.forget(principal);
      const files = this.filesOfPrincipal.get(principal);
      // Two grants to one principal (never in a whole load: one row per file and principal): the stronger counts.
      if (!files) this.filesOfPrincipal.set(principal, new Map([[fileId, rank]]));
      else if (whole || this.loading || (files.get(fileId) ?? 0) < rank) files.set(fileId, rank);
    }
  }

  /**
   * Starts a whole load: forgets everything, then until `endLoad` the setters only fill (no derived fact
   * is dropped per write; `endLoad` drops them all once).
   */
  beginLoad(): void {
    this.clear();
    this.loading = true;
  }

  /** Ends a whole load (also when it failed): whatever was derived during it is forgotten. */
  endLoad(): void {
    this.loading = false;
    this.forgetDerived();
    this.search.readable.clear();
  }

  /** Forgets everything (before a full reload). */
  clear(): void {
    for (const map of [this.teams, this.departments, this.users, this.memberships, this.files, this.grants, this.members, this.teamUsers, this.filesOfPrincipal, this.createdFiles])
      map.clear();
    this.contents.clear();
    this.search.clear();
    this.forgetDerived();
  }

  // ---- derived facts ----

  /**
   * Who a grant must name to reach the user: the user, their team (a known user's), and each of their
   * known departments with its ancestors.
   */
  principalsOf(userId: string): readonly string[] {
    let principals = this.principalsByUser.get(userId);
    if (principals !== undefined) return principals;
    principals = this.computePrincipals(userId);
    // Bounded: past the bound the oldest entry goes (the platform asks for the same few users again and again).
    if (this.principalsByUser.size >= PRINCIPALS_REMEMBERED) this.principalsByUser.delete(this.principalsByUser.keys().next().value as string);
    this.principalsByUser.set(userId, principals);
    return principals;
  }

  private computePrincipals(userId: string): readonly string[] {
    const principals = [this.known('user', userId)];
    const teamId = this.users.get(userId)?.teamId;
    if (teamId != null) principals.push(this.known('team', teamId));
    const seen = new Set<string>();
    for (const departmentId of this.memberships.get(userId) ?? []) {
      for (const id of this.tree.chainOf(departmentId)) {
        if (!seen.has(id)) {
          seen.add(id);
          principals.push(this.known('department', id));
        }
      }
    }
    return principals;
  }

  /** The strongest rank granted to the user on the file (0: none). */
  grantedRank(fileId: string, userId: string): number {
    const grants = this.grants.get(fileId);
    return grants ? grants.strongestFor(this.principalsOf(userId)) : 0;
  }

  /** The active direct members of the department, by name then id. */
  activeMembers(departmentId: string): readonly string[] {
    return this.sortedActive(this.members, this.sortedMembers, departmentId).ids;
  }

  /** `activeMembers`' users themselves (a page of members is a slice, no look-up per member). */
  activeMemberUsers(departmentId: string): readonly User[] {
    return this.sortedActive(this.members, this.sortedMembers, departmentId).users;
  }

  /** The active users of the team, by name then id. */
  activeTeamUsers(teamId: string): readonly string[] {
    return this.sortedActive(this.teamUsers, this.sortedTeamUsers, teamId).ids;
  }

  /** `activeTeamUsers`' users themselves. */
  activeTeamUserRecords(teamId: string): readonly User[] {
    return this.sortedActive(this.teamUsers, this.sortedTeamUsers, teamId).users;
  }

  /** Distinct active users in the department and every department under it. */
  subtreeMemberCount(departmentId: string): number {
    if (this.subtreeCounts === undefined) {
      this.subtreeCounts = new SubtreeCounts(this.departments, this.tree);
      for (const [userId, departmentIds] of this.memberships) if (isActive(this.users.get(userId))) this.subtreeCounts.add(departmentIds, 1);
    }
    return this.subtreeCounts.of(departmentId);
  }

  /**
   * The active people of a set by name then id. Sorted once, then kept: the people a write changed are
   * noted on the list and put back in their places on its next use (one pass; a sort of a large team's
   * 100,000 people cost ~150 ms, after every write of one of them), or, past a quarter of a large list, sorted afresh.
   */
  private sortedActive(sets: Map<string, Set<string>>, sorted: Map<string, SortedPeople>, key: string): SortedPeople {
    let found = sorted.get(key);
    if (found !== undefined && found.changed.size > 0) {
      found = this.reordered(sets.get(key), found);
      sorted.set(key, found);
    }
    if (found) return found;
    const people: User[] = [];
    for (const id of sets.get(key) ?? []) {
      const user = this.users.get(id);
      if (user && isActive(user)) people.push(user);
    }
    people.sort(byNameThenId);
    found = { users: people, ids: people.map((user) => user.id), changed: new Map() };
    sorted.set(key, found);
    return found;
  }

  /** `list` with its changed people taken out and, as they are now, put back in order (new arrays: a reader may hold the old ones). */
  private reordered(set: Set<string> | undefined, list: SortedPeople): SortedPeople {
    const returning: User[] = [];
    for (const id of list.changed.keys()) {
      const user = this.users.get(id);
      if (user && isActive(user) && set?.has(id)) returning.push(user);
    }
    returning.sort(byNameThenId);
    // Where each goes among the list's entries, which are still in order (those of changed people included).
    const places = returning.map((user) => placeOf(list.users, user));
    const { users: before, ids: idsBefore } = list;
    // Each changed person's entry, if the list has one, is where the name it was sorted with puts it.
    const dropped: number[] = [];
    for (const [id, seen] of list.changed) {
      const at = seen === undefined ? -1 : placeOf(before, seen);
      if (at >= 0 && idsBefore[at] === id) dropped.push(at);
    }
    dropped.sort(ascending);
    // Copied in runs between the places of change (an element-wise copy of a large list costs ten times more).
    const userRuns: Array<readonly User[]> = [];
    const idRuns: Array<readonly string[]> = [];
    let from = 0;
    for (let next = 0, drop = 0; ;) {
      const place = next < returning.length ? places[next]! : Infinity;
      const at = Math.min(place, drop < dropped.length ? dropped[drop]! : Infinity, before.length);
      userRuns.push(before.slice(from, at));
      idRuns.push(idsBefore.slice(from, at));
      from = at;
      if (place === at) {
        // An entry put back goes before the one now at its place (dropped or not).
        userRuns.push([returning[next]!]);
        idRuns.push([returning[next]!.id]);
        next += 1;
      } else if (at < before.length) {
        from = at + 1;
        drop += 1;
      } else break;
    }
    const users = ([] as User[]).concat(...userRuns);
    const ids = ([] as string[]).concat(...idRuns);
    return { users, ids, changed: new Map() };
  }

  private link(sets: Map<string, Set<string>>, sorted: Map<string, SortedPeople>, key: string, id: string): void {
    const set = sets.get(key);
    if (set) set.add(id);
    else sets.set(key, new Set([id]));
    noteChange(sorted, key, id, this.users.get(id));
  }

  private unlink(sets: Map<string, Set<string>>, sorted: Map<string, SortedPeople>, key: string, id: string): void {
    const set = sets.get(key);
    set?.delete(id);
    if (set?.size === 0) sets.delete(key);
    noteChange(sorted, key, id, this.users.get(id));
  }

  private forgetDerived(): void {
    this.tree.invalidate();
    this.principalsByUser.clear();
    this.sortedMembers.clear();
    this.sortedTeamUsers.clear();
    this.subtreeCounts = undefined;
  }

  /** The one copy of a principal key some grant names, or a new key (never added: most users have no grant of their own). */
  private known(kind: string, id: string): string {
    const key = `${kind}:${id}`;
    return this.principalKeys.get(key) ?? key;
  }

  /** The one copy of the principal key `kind:id`. */
  principalKey(kind: string, id: string): string {
    return this.intern(`${kind}:${id}`);
  }

  /**
   * The one copy of the principal key `key` (`kind:id`): the model's own string, never `key` itself when
   * that is a piece of a longer text (a load's line of grants), which it would keep alive.
   */
  intern(key: string): string {
    let known = this.principalKeys.get(key);
    if (known === undefined) {
      known = ownCopy(key);
      this.principalKeys.set(known, known);
    }
    return known;
  }
}

interface SortedPeople {
  users: readonly User[];
  ids: readonly string[];
  /**
   * People written since it was put in order (their entries may be out of place, or belong no more), each
   * with their record as it was then (undefined: none), which says where their entry is, if they have one.
   */
  changed: Map<string, User | undefined>;
}

/**
 * Notes on a kept list (if any) that a person changed; `seen` is their record before this change. Past a
 * quarter of a large list the list is dropped instead (sorted afresh on its next use).
 */
function noteChange(sorted: Map<string, SortedPeople>, key: string, id: string, seen: User | undefined): void {
  const list = sorted.get(key);
  // The first record noted since the list was ordered is the one its entry was placed by.
  if (list === undefined || list.changed.has(id)) return;
  if (list.changed.size >= Math.max(64, list.users.length / 4)) sorted.delete(key);
  else list.changed.set(id, seen);
}

/** The first index of `users` (in name then id order) whose entry does not come before `user`. */
function placeOf(users: readonly User[], user: User): number {
  let low = 0;
  let high = users.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (byNameThenId(users[middle]!, user) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * `text` in a string of its own (V8 keeps a piece cut from a longer string as a view of that string);
 * through JSON, which keeps every code unit, lone surrogates included.
 */
function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

function isActive(user: User | undefined): user is User {
  return user !== undefined && user.active !== false;
}
