import type { FileWithGrant } from '../../directory/directory.js';
import { roleFromRank } from '../../directory/permissions.js';
import type { SearchKeyword } from '../../directory/search-keyword.js';
import type { DepartmentHit, DirectorySearch, SearchHits, SearchQuery } from '../../directory/search-port.js';
import type { PageRequest, User } from '../../directory/types.js';
import type { MatchList, MatchRow, ViewerScope } from '../cached-shapes.js';
import { departmentPaths, departmentRows, subtreeMemberCounts } from '../department-facts.js';
import { toFile, toUser, type FileRow, type UserRow } from '../directory-rows.js';
import type { UserMatchRow } from '../directory-caches.js';
import type { ReadContext } from '../read-context.js';
import { cachedViewerScope } from '../viewer-scope.js';
import { departmentList, fileList, tierOf, userList } from './match-lists.js';
import { fileAccessOf, grantedRank, mayRead, readableIds, readablePositions } from './readable-files.js';
import { cappedCount, SEARCH_BOUNDS, type SearchBounds } from './search-bounds.js';
import { idListStatements, SEARCH_SQL } from './search-statements.js';
import { compareText } from './text-order.js';

/** A candidate placed before a list's entries of the same tier (a contact, the searcher's department, a touched file). */
interface Leading {
  id: string;
  tier: number;
}

type FileMatchRow = MatchRow & { updated_at: string; status: string };

/**
 * The search half of the Directory port over the store (SQLite or PostgreSQL), with bounded work for any
 * keyword (docs/search.md). Each kind ranks, once per keyword and scope, the index's matches that do not
 * depend on who searches (match-lists.ts, cached until a write to the directory); a search then places
 * the searcher's own few (contacts, departments, touched files) ahead within each tier, keeps the files
 * they may read (readable-files.ts), and reads only the page's rows.
 */
export class SqlSearch implements DirectorySearch {
  private readonly contactsOfTick = new Map<string, Promise<Map<string, string>>>();

  constructor(
    private readonly context: ReadContext,
    private readonly bounds: SearchBounds = SEARCH_BOUNDS,
  ) {}

  async searchTeamMembers(query: SearchQuery & { teamId: string }): Promise<SearchHits<User>> {
    const { keyword, teamId } = query;
    await this.context.caches.refresh();
    const [list, contacts] = await Promise.all([
      this.context.caches.userLists.through(`${teamId}\u0000${keyword.text}`, () => userList(this.context, teamId, keyword, this.bounds.peopleScan), weighList),
      this.contacts(query.viewerId),
    ]);
    const rows = await this.userMatchRows([...contacts.keys()]);
    const leading = rankedUsers(keyword, rows, contacts, (row) => row.team_id === teamId);
    const ids = mergeByTier(leading, list, query.page);
    const count = cappedCount(list.found, list.truncated);
    return { ...count, items: await this.users(ids) };
  }

  async searchCollaborators(query: SearchQuery & { fileId: string }): Promise<SearchHits<User>> {
    const scan = this.bounds.peopleScan;
    await this.context.caches.refresh();
    const ids = (await this.context.reads.rows<{ user_id: string }>(SEARCH_SQL.collaboratorIds, [query.fileId, scan + 1])).map((row) => row.user_id);
    const [rows, contacts] = await Promise.all([this.userMatchRows(ids.slice(0, scan)), this.contacts(query.viewerId)]);
    const ranked = rankedUsers(query.keyword, rows, contacts, () => true);
    const count = cappedCount(ranked.length, ids.length > scan);
    return { ...count, items: await this.users(pageOf(ranked, query.page).map((row) => row.id)) };
  }

  async searchRecentContacts(query: SearchQuery & { fileId: string | null }): Promise<SearchHits<User>> {
    const { viewerId, fileId } = query;
    await this.context.caches.refresh();
    const { reads } = this.context;
    const [contacts, onFile, collaborators, colleagues] = await Promise.all([
      this.contacts(viewerId),
      fileId === null ? [] : reads.rows<{ user_id: string; last_at: string }>(SEARCH_SQL.fileActivity, [fileId]),
      fileId === null ? [] : reads.rows<{ user_id: string }>(SEARCH_SQL.collaboratorIds, [fileId, this.bounds.peopleScan]),
      this.context.caches.colleagues.through(
        viewerId,
        async () => (await reads.rows<{ user_id: string }>(SEARCH_SQL.colleagueIds, [viewerId])).map((row) => row.user_id),
        (ids) => Math.max(1, ids.length),
      ),
    ]);
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
    for (const row of onFile) relate(row.user_id, row.last_at, 1);
    for (const row of collaborators) relate(row.user_id, null, 2);
    for (const id of colleagues) relate(id, null, 3);
    const rows = (await this.userMatchRows([...related.keys()])).filter((row) => Number(row.active) !== 0);
    const ranked = rows.flatMap((row) => {
      const tier = tierOf(query.keyword, row);
      const info = related.get(row.id);
      return tier === null || !info ? [] : [{ id: row.id, name: row.name, tier, lastAt: info.lastAt, source: info.source }];
    });
    ranked.sort((a, b) => a.tier - b.tier || newestFirst(a.lastAt, b.lastAt) || a.source - b.source || compareText(a.name, b.name) || compareText(a.id, b.id));
    return { ...cappedCount(ranked.length, false), items: await this.users(pageOf(ranked, query.page).map((row) => row.id)) };
  }

  async searchDepartments(query: SearchQuery & { teamId: string }): Promise<SearchHits<DepartmentHit>> {
    const { keyword, teamId } = query;
    await this.context.caches.refresh();
    const [list, scope] = await Promise.all([
      this.context.caches.departmentLists.through(`${teamId}\u0000${keyword.text}`, () => departmentList(this.context, teamId, keyword, this.bounds.peopleScan), weighList),
      this.scope(query.viewerId),
    ]);
    // The searcher's own departments and their ancestors lead each tier.
    const mine = [...(await departmentRows(this.context, scope.departmentTree)).values()].flatMap((row) => {
      const tier = row.team_id === teamId ? tierOf(keyword, row) : null;
      return tier === null ? [] : [{ id: row.id, name: row.name, tier }];
    });
    mine.sort((a, b) => a.tier - b.tier || compareText(a.name, b.name) || compareText(a.id, b.id));
    const ids = mergeByTier(mine, list, query.page);
    const [rows, paths, counts] = await Promise.all([departmentRows(this.context, ids), departmentPaths(this.context, ids), subtreeMemberCounts(this.context, ids)]);
    const items = ids.flatMap((id) => {
      const row = rows.get(id);
      return row ? [{ id, name: row.name, allMemberCount: counts.get(id) ?? 0, parentDepartments: [...(paths.get(id) ?? [])] }] : [];
    });
    return { ...cappedCount(list.found, list.truncated), items };
  }

  async searchReadableFiles(query: SearchQuery & { excludeFileId?: string }): Promise<SearchHits<FileWithGrant>> {
    const { keyword, viewerId, excludeFileId } = query;
    await this.context.caches.refresh();
    const [list, access, touched] = await Promise.all([
      this.context.caches.fileLists.through(keyword.text, () => fileList(this.context, keyword, this.bounds.fileScan), (found) => Math.max(1, found.ids.length)),
      this.scope(viewerId).then((scope) => fileAccessOf(this.context, scope)),
      this.context.reads.rows<{ file_id: string; last_at: string }>(SEARCH_SQL.touchedFiles, [viewerId]),
    ]);
    const lastTouched = new Map(touched.map((row) => [row.file_id, row.last_at]));
    const wanted = (row: FileMatchRow) => row.status === 'active' && row.id !== excludeFileId && mayRead(access, row.id);
    let ranked: { ids: string[]; total: number; capped: boolean };
    if (list.truncated && access.sizeBound <= this.bounds.readableScan) {
      // More matches than were read, but few readable files: match those one by one (exact).
      const rows = (await this.fileMatchRows(readableIds(access))).filter(wanted);
      const all = rankFiles(keyword, rows, lastTouched);
      ranked = { ids: pageOf(all, query.page).map((row) => row.id), ...cappedCount(all.length, false) };
    } else {
      const rows = (await this.fileMatchRows([...lastTouched.keys()])).filter(wanted);
      const leading = rankFiles(keyword, rows, lastTouched);
      const skip = new Set(leading.map((row) => row.id));
      if (excludeFileId !== undefined) skip.add(excludeFileId);
      const positions = readablePositions(list, access).filter((position) => !skip.has(list.ids[position] as string));
      ranked = {
        ids: mergePositions(leading, list, positions, query.page),
        ...cappedCount(positions.length + leading.length, list.truncated),
      };
    }
    const files = await this.files(ranked.ids);
    return {
      total: ranked.total,
      capped: ranked.capped,
      items: files.map((row) => {
        const rank = grantedRank(access, row.id);
        return { file: toFile(row), grantedRole: rank === undefined ? null : roleFromRank(rank) };
      }),
    };
  }

  /** The searcher's scope (team, departments, principals), cached. */
  private scope(viewerId: string): Promise<ViewerScope> {
    return cachedViewerScope(this.context, viewerId);
  }

  /**
   * The searcher's contacts (user -> last mention either way), read once for the kinds of one search
   * (activity changes with every event, so it is never cached longer).
   */
  private contacts(viewerId: string): Promise<Map<string, string>> {
    let pending = this.contactsOfTick.get(viewerId);
    if (!pending) {
      pending = Promise.resolve(this.context.reads.rows<{ user_id: string; last_at: string }>(SEARCH_SQL.contacts, [viewerId])).then(
        (rows) => new Map(rows.map((row) => [row.user_id, row.last_at])),
      );
      this.contactsOfTick.set(viewerId, pending);
      const shared = pending;
      queueMicrotask(() => {
        if (this.contactsOfTick.get(viewerId) === shared) this.contactsOfTick.delete(viewerId);
      });
    }
    return pending;
  }

  /** The users among `ids` that exist (cached per user until a write to the people area). */
  private async userMatchRows(ids: readonly string[]): Promise<UserMatchRow[]> {
    if (ids.length === 0) return [];
    const found = await this.context.caches.userRows.throughMany(
      ids,
      async (missing) => {
        const statement = idListStatements(this.context.sql).userMatchRows;
        const rows = await this.context.reads.rows<UserMatchRow>(statement, [this.context.sql.idListValue(missing)]);
        return new Map(rows.map((row) => [row.id, row]));
      },
      null,
    );
    return [...found.values()].filter((row): row is UserMatchRow => row !== null);
  }

  private async fileMatchRows(ids: readonly string[]): Promise<FileMatchRow[]> {
    if (ids.length === 0) return [];
    const statements = idListStatements(this.context.sql);
    return this.context.reads.rows<FileMatchRow>(statements.fileMatchRows, [this.context.sql.idListValue(ids)]);
  }

  /** Users by id, in the order of `ids` (one removed since is left out). */
  private async users(ids: readonly string[]): Promise<User[]> {
    if (ids.length === 0) return [];
    const rows = await this.context.reads.rows<UserRow>(idListStatements(this.context.sql).users, [this.context.sql.idListValue(ids)]);
    return inOrder(ids, rows).map(toUser);
  }

  private async files(ids: readonly string[]): Promise<FileRow[]> {
    if (ids.length === 0) return [];
    return inOrder(ids, await this.context.reads.rows<FileRow>(idListStatements(this.context.sql).files, [this.context.sql.idListValue(ids)]));
  }
}

const weighList = (list: MatchList) => Math.max(1, list.ids.length);

/** Newest first, none last. */
function newestFirst(a: string | null | undefined, b: string | null | undefined): number {
  if (a === b) return 0;
  if (a == null) return 1;
  if (b == null) return -1;
  return a > b ? -1 : 1;
}

/** The active users among `rows` that match and `keep` allows, by tier, last contact, name and id. */
function rankedUsers(keyword: SearchKeyword, rows: readonly UserMatchRow[], contacts: ReadonlyMap<string, string>, keep: (row: UserMatchRow) => boolean) {
  const ranked = rows.flatMap((row) => {
    const tier = Number(row.active) !== 0 && keep(row) ? tierOf(keyword, row) : null;
    return tier === null ? [] : [{ id: row.id, name: row.name, tier, lastAt: contacts.get(row.id) ?? null }];
  });
  return ranked.sort((a, b) => a.tier - b.tier || newestFirst(a.lastAt, b.lastAt) || compareText(a.name, b.name) || compareText(a.id, b.id));
}

/** Matching files by tier, the searcher's latest activity on them, `updatedAt`, name and id. */
function rankFiles(keyword: SearchKeyword, rows: readonly FileMatchRow[], lastTouched: ReadonlyMap<string, string>) {
  const ranked = rows.flatMap((row) => {
    const tier = tierOf(keyword, row);
    return tier === null ? [] : [{ id: row.id, name: row.name, tier, lastAt: lastTouched.get(row.id) ?? null, updatedAt: row.updated_at }];
  });
  return ranked.sort(
    (a, b) =>
      a.tier - b.tier || newestFirst(a.lastAt, b.lastAt) || newestFirst(a.updatedAt, b.updatedAt) || compareText(a.name, b.name) || compareText(a.id, b.id),
  );
}

function pageOf<T>(ranked: readonly T[], page: PageRequest): T[] {
  return ranked.slice(page.offset, page.offset + page.limit);
}

/** One page of `leading` merged into `list`: within a tier, the leading entries first; each id once. */
function mergeByTier(leading: readonly Leading[], list: MatchList, page: PageRequest): string[] {
  const skip = new Set(leading.map((entry) => entry.id));
  const positions: number[] = [];
  for (let position = 0; position < list.ids.length && positions.length < page.offset + page.limit; position += 1) {
    if (!skip.has(list.ids[position] as string)) positions.push(position);
  }
  return mergePositions(leading, list, positions, page);
}

/** One page of `leading` merged into the list entries at `positions` (ascending), leading entries first within a tier. */
function mergePositions(leading: readonly Leading[], list: MatchList, positions: ArrayLike<number>, page: PageRequest): string[] {
  const ids: string[] = [];
  const end = page.offset + page.limit;
  let i = 0;
  let j = 0;
  while (ids.length < end && (i < leading.length || j < positions.length)) {
    const lead = leading[i];
    const position = positions[j];
    if (lead && (position === undefined || lead.tier <= (list.tiers[position] as number))) {
      ids.push(lead.id);
      i += 1;
    } else {
      ids.push(list.ids[position as number] as string);
      j += 1;
    }
  }
  return ids.slice(page.offset);
}

/** The rows in the order of `ids` (rows missing since, by a concurrent delete, are left out). */
function inOrder<T extends { id: string }>(ids: readonly string[], rows: readonly T[]): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
