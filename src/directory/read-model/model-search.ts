import type { FileOrder } from '../directory.js';
import { roleFromRank } from '../permissions.js';
import type { SearchKeyword } from '../search-keyword.js';
import { SEARCH_COUNT_CAP } from '../search-page.js';
import { DEPARTMENT_FALLBACK_USERS, type DepartmentHit, type DirectorySearch, type SearchHits, type SearchQuery } from '../search-port.js';
import { MATCH_TIERS, matchTier, type MatchTier } from '../search-ranking.js';
import type { FileRecord, FileWithGrant, PageRequest, User } from '../types.js';
import type { DirectoryModel } from './directory-model.js';
import { FileAccess } from './file-access.js';
import { floorOf, tierRuns, type NameIndex, type Posting } from './name-index.js';
import { byNewest, newestFirst } from './file-order.js';
import { ReadablePositions } from './readable-entries.js';
import type { ModelSource } from './model-source.js';
import { compareText } from './text-order.js';
import { topRanked } from './top-ranked.js';
import { ascending } from './number-order.js';

/**
 * The activity the rankings use, which stays in the store (it changes with every event). The kinds of one
 * search ask for it in the same turn; the store's reads gather what a turn asks into one statement
 * (src/store/directory-reads/activity-reads.ts), the viewer's contacts read once for all the kinds. The
 * maps answered may be shared: read them, never change them.
 */
export interface ActivityReads {
  /** user -> latest mention between the viewer and them, either way (the newest RECENT_ACTIVITY_ROWS each way). */
  contactsOf(viewerId: string): Promise<Map<string, string>>;
  /** file -> the viewer's latest activity on it (their newest RECENT_ACTIVITY_ROWS rows). */
  touchedFilesOf(viewerId: string): Promise<Map<string, string>>;
  /** user -> their latest activity on the file (its newest RECENT_ACTIVITY_ROWS rows). */
  activityOnFile(fileId: string): Promise<Map<string, string>>;
}

/** The most work one search does, whatever the keyword (docs/search.md "Bounds"). */
export interface ModelSearchBounds {
  /** Candidates of people (a keyword of 4+ characters) or departments checked per keyword. */
  peopleScan: number;
  /** Readable file candidates of a keyword's posting; files walked newest first for the empty keyword. */
  fileScan: number;
  /** Empty keyword: a user who may read at most this many files has them listed one by one instead. */
  readableScan: number;
}

export const MODEL_SEARCH_BOUNDS: ModelSearchBounds = Object.freeze({ peopleScan: 5_000, fileScan: 20_000, readableScan: 2_000 });

interface RankedFile {
  file: FileRecord;
  tier: MatchTier;
  lastAt: string | null;
}

interface RankedUser {
  user: User;
  tier: MatchTier;
  lastAt: string | null;
  source: number;
}

/**
 * @-mention search and the readable-file lists from the read model (docs/search.md): candidates from
 * the name indexes (n-gram postings), each checked with `matchTier`, files filtered by the grants by
 * principal in memory, with the activity of the rankings read from the store.
 */
export class ModelSearch implements DirectorySearch {
  constructor(
    private readonly source: ModelSource,
    private readonly activity: ActivityReads,
    private readonly bounds: ModelSearchBounds = MODEL_SEARCH_BOUNDS,
  ) {}

  private get model(): DirectoryModel {
    return this.source.model;
  }

  async searchTeamMembers(query: SearchQuery & { teamId: string }): Promise<SearchHits<User>> {
    const { keyword, teamId, page } = query;
    const [contacts] = await Promise.all([this.activity.contactsOf(query.viewerId), this.source.current()]);
    const model = this.model;
    const inTeam = (user: User | undefined): user is User => user !== undefined && user.active !== false && user.teamId === teamId;
    if (keyword.text === '') {
      const all = model.activeTeamUsers(teamId);
      const leading = this.rankUsers(keyword, contacts.keys(), contacts, inTeam).sort(byContact);
      const skip = new Set(leading.map((entry) => entry.user.id));
      const items = leading.slice(page.offset, page.offset + page.limit).map((entry) => entry.user);
      for (let position = 0, index = leading.length; position < all.length && items.length < page.limit; position += 1) {
        const id = all[position]!;
        if (skip.has(id)) continue;
        if (index >= page.offset) items.push(model.users.get(id)!);
        index += 1;
      }
      return counted(all.length, false, items);
    }
    const names = model.search.peopleOf(teamId);
    const posting = names.lookup(keyword);
    const { index, entries, tiers, stale } = posting;
    const aside = new Set<number>();
    for (const id of contacts.keys()) addNumber(aside, index, id);
    // The contacts and the people written since the index was built are checked one by one.
    const ranked = this.rankUsers(keyword, union(posting.changed, contacts.keys()), contacts, inTeam);
    const need = page.offset + page.limit;
    let total = ranked.length;
    if (!posting.exact) {
      // A longer keyword: its 3-gram's candidates checked one by one (on the index's texts), tier by
      // tier, at most `peopleScan`. Within a tier the posting's people rank by name, then id: their
      // entry numbers (the contacts, ranked by last contact, are checked above), so only each run's
      // first `need` matches of each tier may reach the page, and the walk stops once the page is
      // settled and more than the count's cap match.
      const runs = tierRuns(tiers);
      const perTier = [0, 0, 0, 0, 0];
      const shown: number[][] = [[], [], [], [], []];
      const skipAside = aside.size > 0;
      let checked = 0;
      let matches = 0;
      walk: for (let run = 0; run < 5 && checked <= this.bounds.peopleScan; run += 1) {
        const inRun = [0, 0, 0, 0, 0];
        const floor = floorOf(posting, run);
        for (let position = runs[run]!; position < runs[run + 1]! && checked <= this.bounds.peopleScan; position += 1) {
          const entry = entries[position]!;
          if (stale[entry] !== 0 || (skipAside && aside.has(entry)) || ++checked > this.bounds.peopleScan) continue;
          const tier = index.tierOf(entry, keyword, floor);
          if (tier === null) continue;
          perTier[tier] = perTier[tier]! + 1;
          if (inRun[tier]! < need) shown[tier]!.push(entry);
          inRun[tier] = inRun[tier]! + 1;
          matches += 1;
          if (total + matches > SEARCH_COUNT_CAP && runSettled(perTier, inRun, run, need, posting)) break walk;
        }
        if (pageSettled(perTier, run, need, posting) && total + sum(perTier) > SEARCH_COUNT_CAP) break;
      }
      for (let tier = 0, taken = 0; tier < 5 && taken < need; tier += 1) {
        const entriesOfTier = shown[tier]!.sort(ascending);
        for (let at = 0; at < entriesOfTier.length && taken < need; at += 1, taken += 1) {
          ranked.push({ user: model.users.get(index.ids[entriesOfTier[at]!]!)!, tier: tier as MatchTier, lastAt: null, source: 0 });
        }
      }
      return counted(
        total + sum(perTier),
        checked > this.bounds.peopleScan,
        pageOf(ranked, page, byContact).map((entry) => entry.user),
      );
    }
    // A keyword of up to three characters: its posting holds the matches by tier, then by name and id
    // (the order of the team's people), so a page needs only the first entries; the rest are counted up
    // to the cap.
    let taken = 0;
    for (let position = 0; position < entries.length; position += 1) {
      const entry = entries[position]!;
      if (stale[entry] !== 0 || aside.has(entry)) continue;
      total += 1;
      if (taken < need) {
        ranked.push({ user: model.users.get(index.ids[entry]!)!, tier: tiers[position]! as MatchTier, lastAt: null, source: 0 });
        taken += 1;
      } else if (total > SEARCH_COUNT_CAP) break;
    }
    return counted(
      total,
      false,
      pageOf(ranked, page, byContact).map((entry) => entry.user),
    );
  }

  async searchCollaborators(query: SearchQuery & { fileId: string }): Promise<SearchHits<User>> {
    const [contacts] = await Promise.all([this.activity.contactsOf(query.viewerId), this.source.current()]);
    const ids = this.collaboratorIds(query.fileId);
    const scan = this.bounds.peopleScan;
    const ranked = this.rankUsers(query.keyword, ids.slice(0, scan), contacts, isActive);
    return counted(
      ranked.length,
      ids.length > scan,
      pageOf(ranked, query.page, byContact).map((entry) => entry.user),
    );
  }

  async searchRecentContacts(query: SearchQuery & { fileId: string | null }): Promise<SearchHits<User>> {
    const { viewerId, fileId } = query;
    const none = new Map<string, string>();
    const [contacts, onFile] = await Promise.all([this.activity.contactsOf(viewerId), fileId === null ? none : this.activity.activityOnFile(fileId), this.source.current()]);
    // source: 0 mentions either way, 1 activity on the file, 2 the file's collaborators, 3 same department.
    const related = new Map<string, { lastAt: string | null; source: number }>();
    const relate = (userId: string, lastAt: string | null, source: number) => {
      if (userId === viewerId) return;
      const seen = related.get(userId);
      if (!seen) related.set(userId, { lastAt, source });
      else {
        if (lastAt !== null && (seen.lastAt === null || lastAt > seen.lastAt)) seen.lastAt = lastAt;
        seen.source = Math.min(seen.source, source);
      }
    };
    for (const [userId, lastAt] of contacts) relate(userId, lastAt, 0);
    for (const [userId, lastAt] of onFile) relate(userId, lastAt, 1);
    if (fileId !== null) for (const id of this.collaboratorIds(fileId).slice(0, this.bounds.peopleScan)) relate(id, null, 2);
    for (const id of this.colleaguesOf(viewerId)) relate(id, null, 3);
    const ranked: RankedUser[] = [];
    for (const [id, info] of related) {
      const user = this.model.users.get(id);
      const tier = user && isActive(user) ? this.userTier(query.keyword, user) : null;
      if (tier !== null) ranked.push({ user: user!, tier, lastAt: info.lastAt, source: info.source });
    }
    const order = (a: RankedUser, b: RankedUser) =>
      a.tier - b.tier || newestFirst(a.lastAt, b.lastAt) || a.source - b.source || compareText(a.user.name, b.user.name) || compareText(a.user.id, b.user.id);
    return counted(
      ranked.length,
      false,
      pageOf(ranked, query.page, order).map((entry) => entry.user),
    );
  }

  async searchDepartments(query: SearchQuery & { teamId: string }): Promise<SearchHits<DepartmentHit>> {
    const { keyword, teamId } = query;
    await this.source.current();
    const model = this.model;
    // The viewer's own departments and their ancestors lead each tier.
    const mine = new Set<string>();
    for (const departmentId of model.memberships.get(query.viewerId) ?? []) for (const id of model.tree.chainOf(departmentId)) mine.add(id);
    let candidates: Iterable<string>;
    let truncated = false;
    if (keyword.text === '') candidates = model.departments.keys();
    else {
      const found = model.search.departmentsOf(teamId).candidates(keyword, this.bounds.peopleScan);
      candidates = union(found.ids, mine);
      truncated = found.truncated;
    }
    const ranked: Array<{ id: string; name: string; tier: number; leads: number }> = [];
    for (const id of candidates) {
      const department = model.departments.get(id);
      if (!department || department.teamId !== teamId) continue;
      const keys = model.search.keysOfDepartment(department);
      const tier = matchTier(keyword, { name: department.name, pinyin: keys.pinyin, initials: keys.initials });
      if (tier !== null) ranked.push({ id, name: department.name, tier, leads: mine.has(id) ? 0 : 1 });
    }
    const order = (a: (typeof ranked)[number], b: (typeof ranked)[number]) => a.tier - b.tier || a.leads - b.leads || compareText(a.name, b.name) || compareText(a.id, b.id);
    const items = pageOf(ranked, query.page, order).map(({ id, name }) => ({
      id,
      name,
      allMemberCount: model.subtreeMemberCount(id),
      parentDepartments: model.tree.ancestorsOf(id),
    }));
    return counted(ranked.length, truncated, items);
  }

  async searchReadableFiles(query: SearchQuery & { excludeFileId?: string }): Promise<SearchHits<FileWithGrant>> {
    const { keyword, viewerId, excludeFileId } = query;
    const [touched] = await Promise.all([this.activity.touchedFilesOf(viewerId), this.source.current()]);
    const model = this.model;
    const access = new FileAccess(model, viewerId);
    const wanted = (file: FileRecord | undefined): file is FileRecord => file !== undefined && file.status === 'active' && file.id !== excludeFileId && access.mayRead(file.id);
    let truncated = false;
    const ranked: RankedFile[] = [];
    let total: number;
    if (keyword.text === '') {
      const few = access.sizeBound <= this.bounds.readableScan;
      const walked = few ? { ids: access.ids(), truncated: false } : this.newestReadable(wanted, touched, query.page.offset + query.page.limit);
      truncated = walked.truncated;
      for (const id of union(walked.ids, touched.keys())) {
        const file = model.files.get(id);
        if (wanted(file)) ranked.push({ file, tier: MATCH_TIERS.exact, lastAt: touched.get(id) ?? null });
      }
      total = few ? ranked.length : this.readableCount(viewerId, access, excludeFileId);
    } else {
      const found = this.readableMatches(query, access, touched, ranked);
      total = found.total;
      truncated = found.truncated;
    }
    const order = (a: RankedFile, b: RankedFile) => a.tier - b.tier || newestFirst(a.lastAt, b.lastAt) || byNewest(a.file, b.file);
    const items = pageOf(ranked, query.page, order).map(({ file }) => ({ file, grantedRole: roleFromRank(access.rankOf(file.id)) }));
    return counted(total, truncated, items);
  }

  /**
   * The readable files matching a non-empty keyword, into `ranked`: those the page may show (each
   * tier's first `need` by time), and how many match (exact up to the count's cap). The keyword's
   * candidates in the file-name index are merged with the viewer's principals' sorted entries, a
   * stretch at a time: the index numbers its files newest first, so within a tier the first matches
   * walked are the tier's newest and the walk stops once the page is settled and more than the cap
   * match. Files written or moved in time since the index was built and the files the viewer worked on
   * are checked one by one.
   */
  private readableMatches(
    query: SearchQuery & { excludeFileId?: string },
    access: FileAccess,
    touched: ReadonlyMap<string, string>,
    ranked: RankedFile[],
  ): { total: number; truncated: boolean } {
    const { keyword, viewerId, excludeFileId, page } = query;
    const model = this.model;
    const posting = model.search.fileNames.lookup(keyword);
    const { index, entries, tiers, exact, stale } = posting;
    // Entries to leave to the one-by-one checks: the excluded file and the files worked on.
    const aside = new Set<number>();
    for (const id of touched.keys()) addNumber(aside, index, id);
    if (excludeFileId !== undefined) addNumber(aside, index, excludeFileId);
    const checked = new Set<string>([...posting.changed, ...touched.keys()]);
    for (const id of checked) {
      const file = model.files.get(id);
      if (file === undefined || file.status !== 'active' || file.id === excludeFileId || !access.mayRead(id)) continue;
      const tier = this.fileTier(keyword, file);
      if (tier !== null) ranked.push({ file, tier, lastAt: touched.get(id) ?? null });
    }
    const oneByOne = ranked.length;
    const lists = this.readableLists(index, viewerId);
    const skipAside = aside.size > 0;
    // Tier by tier (the postings are grouped by tier), each run newest first: `shown` keeps each tier's
    // first `need` matches of each run, which hold the tier's `need` newest.
    const runs = tierRuns(tiers);
    const need = page.offset + page.limit;
    const perTier = [0, 0, 0, 0, 0];
    const shown: number[][] = [[], [], [], [], []];
    const found: number[] = [];
    // Files whose `updatedAt` changed since (stale 2): their texts are the index's, their place in time
    // is not. The walk counts those it meets and ranks them by their records; see below for the others.
    const moved: number[] = [];
    let budget = this.bounds.fileScan;
    let truncated = false;
    /** The walk stopped in the middle of a run: the tier the entries left in it may have at best. */
    let stoppedAt: MatchTier | undefined;
    /** ...and the last entry it walked there (those left come after it). */
    let stoppedAfter = -1;
    walk: for (let run = 0; run < 5; run += 1) {
      const candidates = entries.subarray(runs[run]!, runs[run + 1]!);
      const inRun = [0, 0, 0, 0, 0];
      const floor = floorOf(posting, run);
      const readable = new ReadablePositions(candidates, lists);
      for (let stretch = FIRST_STRETCH; !readable.done; stretch *= 2) {
        found.length = 0;
        readable.next(stretch, found);
        for (const position of found) {
          if (budget === 0) {
            truncated = true;
            break walk;
          }
          budget -= 1;
          const entry = candidates[position]!;
          const state = stale[entry]!;
          if (state === 1 || (skipAside && aside.has(entry))) continue;
          // A short keyword's tier is the run's; a longer one's is checked on the index's texts.
          const tier = exact ? run : index.tierOf(entry, keyword, floor);
          if (tier === null) continue;
          perTier[tier] = perTier[tier]! + 1;
          if (state === 2) {
            moved.push(entry, tier);
            continue;
          }
          if (inRun[tier]! < need) shown[tier]!.push(entry);
          inRun[tier] = inRun[tier]! + 1;
        }
        if (oneByOne + sum(perTier) > SEARCH_COUNT_CAP && runSettled(perTier, inRun, run, need, posting)) {
          if (!readable.done) {
            stoppedAt = lowestOf(posting, run);
            stoppedAfter = candidates[readable.walked - 1]!;
          }
          break walk;
        }
      }
      // Settled at a run's end: the later runs' entries, moved or not, rank after `need` matches.
      if (pageSettled(perTier, run, need, posting) && oneByOne + sum(perTier) > SEARCH_COUNT_CAP) break;
    }
    let unseen = 0;
    if (truncated || stoppedAt !== undefined) {
      // Moved files the walk did not meet (its count is past the cap, or bounded): past a stop in a run,
      // only those left in it (after the last entry walked) of the tier it stopped at may rank into the
      // page, and only the newest `need` of them (`movedAt` is newest first); past the bound, each is
      // checked.
      const seen = new Set<number>();
      for (let at = 0; at < moved.length; at += 2) seen.add(moved[at]!);
      let taken = 0;
      let lastAt: string | undefined;
      for (let at = 0; at < posting.moved.length; at += 1) {
        const entry = posting.moved[at]!;
        const time = posting.movedAt[at]!;
        if (!truncated && taken >= need && time !== lastAt) break;
        if ((!truncated && entry <= stoppedAfter) || stale[entry] !== 2 || aside.has(entry) || seen.has(entry)) continue;
        const tier = index.tierOf(entry, keyword);
        if (tier === null || (!truncated && tier !== stoppedAt)) continue;
        const id = index.ids[entry]!;
        // An older place of a file moved again.
        if (model.files.get(id)?.updatedAt !== time) continue;
        seen.add(entry);
        if (!access.mayRead(id)) continue;
        moved.push(entry, tier);
        unseen += 1;
        taken += 1;
        lastAt = time;
      }
    }
    for (let at = 0; at < moved.length; at += 2) {
      ranked.push({ file: model.files.get(index.ids[moved[at]!]!)!, tier: moved[at + 1]! as MatchTier, lastAt: null });
    }
    // Each tier's first `need` files by time (entry numbers): no later one can displace them.
    for (let tier = 0, taken = 0; tier < 5 && taken < need; tier += 1) {
      const entriesOfTier = shown[tier]!.sort(ascending);
      for (let at = 0; at < entriesOfTier.length && taken < need; at += 1, taken += 1) {
        ranked.push({ file: model.files.get(index.ids[entriesOfTier[at]!]!)!, tier: tier as MatchTier, lastAt: null });
      }
    }
    return { total: oneByOne + sum(perTier) + unseen, truncated };
  }

  /** Per principal of the viewer, and for the files they created: their entries in `index`, ascending. */
  private readableLists(index: NameIndex, viewerId: string): Int32Array[] {
    const model = this.model;
    const lists = model.principalsOf(viewerId).map((principal) => model.search.readable.of(index, principal, model.filesOfPrincipal.get(principal)));
    lists.push(model.search.readable.of(index, `creator:${viewerId}`, model.createdFiles.get(viewerId)));
    return lists;
  }

  /** How many active files the viewer may read, `excludeFileId` left out: exact up to past the count's cap. */
  private readableCount(viewerId: string, access: FileAccess, excludeFileId: string | undefined): number {
    const model = this.model;
    // Moved entries (stale 2) are the same active files: counted from the lists.
    const { index, stale, changed } = model.search.fileNames.current();
    const excluded = excludeFileId === undefined ? undefined : index.numberOf(excludeFileId);
    let count = model.search.readable.countDistinct(this.readableLists(index, viewerId), (entry) => stale[entry] === 1 || entry === excluded, SEARCH_COUNT_CAP);
    for (const id of changed) {
      if (count > SEARCH_COUNT_CAP) break;
      const file = model.files.get(id);
      if (file !== undefined && file.status === 'active' && id !== excludeFileId && access.mayRead(id)) count += 1;
    }
    return count;
  }

  private fileTier(keyword: SearchKeyword, file: FileRecord): MatchTier | null {
    const keys = this.model.search.keysOfFile(file);
    return matchTier(keyword, { name: file.name, pinyin: keys.pinyin, initials: keys.initials });
  }

  /** GET /files: the newest active files the user may read (by `orderBy`, then id, both descending). */
  async listReadableFiles(userId: string, options: { limit: number; orderBy: FileOrder; types?: readonly string[] }): Promise<FileWithGrant[]> {
    await this.source.current();
    const model = this.model;
    const access = new FileAccess(model, userId);
    const column = options.orderBy === 'created_at' ? 'createdAt' : 'updatedAt';
    const types = options.types?.length ? options.types : null;
    const keep = (file: FileRecord | undefined): file is FileRecord => file !== undefined && file.status === 'active' && (types === null || types.includes(file.type));
    let files: FileRecord[];
    if (access.sizeBound <= this.bounds.readableScan) {
      files = [...access.ids()].map((id) => model.files.get(id)).filter(keep);
      files.sort((a, b) => (a[column] === b[column] ? (a.id < b.id ? 1 : -1) : a[column] < b[column] ? 1 : -1));
      files = files.slice(0, options.limit);
    } else {
      files = [];
      let read = 0;
      const order = column === 'createdAt' ? model.search.newestCreated : model.search.newestUpdated;
      order.walk((file) => {
        read += 1;
        if (keep(file) && access.mayRead(file.id)) files.push(file);
        return files.length < options.limit && read < this.bounds.fileScan;
      });
    }
    return files.map((file) => ({ file, grantedRole: roleFromRank(access.rankOf(file.id)) }));
  }

  /**
   * The newest readable files for the empty keyword: walked newest first until a page's end (`need`) is
   * found (and the run of their `updatedAt` is complete) or `fileScan` files were read. The count comes
   * from the readable lists (`readableCount`).
   */
  private newestReadable(wanted: (file: FileRecord) => boolean, touched: ReadonlyMap<string, string>, need: number): { ids: string[]; truncated: boolean } {
    const ids: string[] = [];
    let read = 0;
    let truncated = false;
    let fullAt: string | undefined;
    this.model.search.newestUpdated.walk((file) => {
      if (fullAt !== undefined && file.updatedAt !== fullAt) return false;
      if (read >= this.bounds.fileScan) {
        truncated = true;
        return false;
      }
      read += 1;
      if (!touched.has(file.id) && wanted(file)) {
        ids.push(file.id);
        if (ids.length >= need && fullAt === undefined) fullAt = file.updatedAt;
      }
      return true;
    });
    return { ids, truncated };
  }

  /** The file's creator and the users granted it directly, each once (any status of the file). */
  private collaboratorIds(fileId: string): string[] {
    const ids = new Set<string>();
    const file = this.model.files.get(fileId);
    if (file) ids.add(file.creatorId);
    for (const principal of this.model.grants.get(fileId)?.principals ?? []) if (principal.startsWith('user:')) ids.add(principal.slice('user:'.length));
    return [...ids];
  }

  /**
   * The recent contacts' fallback: at most DEPARTMENT_FALLBACK_USERS active members of the viewer's
   * departments (departments by id, members by name then id), the viewer left out.
   */
  private colleaguesOf(viewerId: string): string[] {
    const found = new Set<string>();
    const departments = [...(this.model.memberships.get(viewerId) ?? [])].sort(compareText);
    for (const departmentId of departments) {
      for (const id of this.model.activeMembers(departmentId)) {
        if (found.size >= DEPARTMENT_FALLBACK_USERS) return [...found];
        if (id !== viewerId) found.add(id);
      }
    }
    return [...found];
  }

  private userTier(keyword: SearchKeyword, user: User): MatchTier | null {
    const keys = this.model.search.keysOfUser(user);
    return matchTier(keyword, { name: user.name, email: user.email, pinyin: keys.pinyin, initials: keys.initials });
  }

  /** The users among `ids` that `keep` allows and match, unordered (see `byContact`). */
  private rankUsers(keyword: SearchKeyword, ids: Iterable<string>, contacts: ReadonlyMap<string, string>, keep: (user: User | undefined) => boolean): RankedUser[] {
    const ranked: RankedUser[] = [];
    for (const id of ids) {
      const user = this.model.users.get(id);
      if (!keep(user)) continue;
      const tier = this.userTier(keyword, user!);
      if (tier !== null) ranked.push({ user: user!, tier, lastAt: contacts.get(id) ?? null, source: 0 });
    }
    return ranked;
  }
}

function isActive(user: User | undefined): boolean {
  return user !== undefined && user.active !== false;
}

function sum(counts: readonly number[]): number {
  return counts.reduce((total, count) => total + count, 0);
}

/**
 * Whether the page is settled after walking a posting's runs up to `run`: every entry after them has a
 * worse tier for the keyword than `run` (exact postings; a bounding one past run 1, as 0 and 1 are one
 * there), and at least `need` matches of tier `run` or better were found.
 */
function pageSettled(perTier: readonly number[], run: number, need: number, posting: Posting): boolean {
  if (!posting.exact && (!posting.bounding || run < 1)) return false;
  return sum(perTier.slice(0, run + 1)) >= need;
}

/** The candidates walked first in a run of a file posting; each next stretch doubles. */
const FIRST_STRETCH = 256;

/**
 * Whether the page is settled in the middle of a posting's run `run`, in an index numbered in the order
 * within a tier (people by name, files newest first): every entry left in the run has a tier of at least
 * `lowest` (the run's; in a bounding posting's run 1, 0) and comes after those walked, and the later
 * runs' entries have worse tiers, so `need` matches of a better tier, or of that tier walked in this
 * run (`inRun`), rank before all of them. A bounding posting's run 0 never is: run 1 may hold earlier
 * matches of tier 0.
 */
function runSettled(perTier: readonly number[], inRun: readonly number[], run: number, need: number, posting: Posting): boolean {
  if (!posting.exact && (!posting.bounding || run === 0)) return false;
  const lowest = lowestOf(posting, run);
  let before = inRun[lowest]!;
  for (let tier = 0; tier < lowest; tier += 1) before += perTier[tier]!;
  return before >= need;
}

/** The best tier an entry of run `run` may have, for `runSettled` (exact or bounding postings). */
function lowestOf(posting: Posting, run: number): MatchTier {
  return (posting.exact || run >= 2 ? run : 0) as MatchTier;
}

function addNumber(numbers: Set<number>, index: NameIndex, id: string): void {
  const number = index.numberOf(id);
  if (number !== undefined) numbers.add(number);
}

/** Each id once, in the order first seen. */
function union(first: Iterable<string>, second: Iterable<string>): Set<string> {
  const ids = new Set(first);
  for (const id of second) ids.add(id);
  return ids;
}

/** One page of `ranked` in the order of `order` (only the entries up to the page's end are sorted). */
function pageOf<T>(ranked: readonly T[], page: PageRequest, order: (a: T, b: T) => number): T[] {
  return topRanked(ranked, page.offset + page.limit, order).slice(page.offset);
}

/** People by tier, last contact (newest first, none last), name, id. */
function byContact(a: RankedUser, b: RankedUser): number {
  return a.tier - b.tier || newestFirst(a.lastAt, b.lastAt) || compareText(a.user.name, b.user.name) || compareText(a.user.id, b.user.id);
}

/** The count a kind reports (at most the cap), and whether more may match. */
function counted<T>(found: number, more: boolean, items: T[]): SearchHits<T> {
  return { total: Math.min(found, SEARCH_COUNT_CAP), items, capped: more || found > SEARCH_COUNT_CAP };
}
