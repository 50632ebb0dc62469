import type { DepartmentPathNode } from '../directory/types.js';
import type { FileList, MatchList, MatchRow, ViewerScope } from './cached-shapes.js';
import type { PreparedReads } from './prepared-reads.js';
import type { CachePartition} from './read-cache.js';
import { ReadCache, readDirectoryVersion } from './read-cache.js';

/** A user as search ranks and filters them. */
export type UserMatchRow = MatchRow & { team_id: string | null; active: number };

/** A department as search and the department callbacks read it. */
export interface DepartmentRow extends MatchRow {
  team_id: string;
  parent_id: string | null;
}

/**
 * Every cache of the read side, by what it holds and which writes make it stale (docs/search.md
 * "What is cached"). Weights count entries, or ids held for lists and sets; the budgets keep one
 * process (or read worker) within some tens of megabytes whatever the directory's size.
 */
export class DirectoryCaches {
  readonly cache: ReadCache;
  /** Per user: team, departments, principals. */
  readonly viewers: CachePartition<string, ViewerScope>;
  /** Per user: what their tier is computed from, with team and active (null: unknown user). */
  readonly userRows: CachePartition<string, UserMatchRow | null>;
  /** Per user: the members of their departments (the recent contacts' fallback). */
  readonly colleagues: CachePartition<string, readonly string[]>;
  /** Per department id (null: unknown). */
  readonly departments: CachePartition<string, DepartmentRow | null>;
  /** Per department: its ancestors from the first level down. */
  readonly departmentPaths: CachePartition<string, readonly DepartmentPathNode[]>;
  /** `department:<id>` (distinct active members of the subtree) and `team:<id>` (active members). */
  readonly memberCounts: CachePartition<string, number>;
  /** Per department: its direct active members' ids by name. */
  readonly directMembers: CachePartition<string, readonly string[]>;
  /** Per team and keyword: users and departments matching it. */
  readonly userLists: CachePartition<string, MatchList>;
  readonly departmentLists: CachePartition<string, MatchList>;
  /** Per keyword: active files matching it (their order by `updatedAt` may lag up to a TTL). */
  readonly fileLists: CachePartition<string, FileList>;
  /** Per principal: the files granted to it, with the role rank. */
  readonly principalFiles: CachePartition<string, ReadonlyMap<string, number>>;
  /** Per user: the files they created. */
  readonly createdFiles: CachePartition<string, readonly string[]>;

  constructor(reads: PreparedReads, options: { now?: () => number; fileListTtlMs: number }) {
    this.cache = new ReadCache(() => readDirectoryVersion(reads), options);
    const people = ['people'] as const;
    this.viewers = this.cache.partition({ areas: people, maxWeight: 10_000 });
    this.userRows = this.cache.partition({ areas: people, maxWeight: 20_000 });
    this.colleagues = this.cache.partition({ areas: people, maxWeight: 200_000 });
    this.departments = this.cache.partition({ areas: people, maxWeight: 50_000 });
    this.departmentPaths = this.cache.partition({ areas: people, maxWeight: 50_000 });
    this.memberCounts = this.cache.partition({ areas: people, maxWeight: 50_000 });
    this.directMembers = this.cache.partition({ areas: people, maxWeight: 50_000 });
    this.userLists = this.cache.partition({ areas: people, maxWeight: 50_000 });
    this.departmentLists = this.cache.partition({ areas: people, maxWeight: 50_000 });
    this.fileLists = this.cache.partition({ areas: ['files'], maxWeight: 100_000, ttlMs: options.fileListTtlMs });
    this.principalFiles = this.cache.partition({ areas: ['grants'], maxWeight: 120_000 });
    this.createdFiles = this.cache.partition({ areas: ['files'], maxWeight: 50_000 });
  }

  /** Reads the version rows and drops what writes since made stale: once per request, before any read. */
  refresh(): Promise<void> {
    return this.cache.refresh();
  }
}
