import type { DepartmentPathNode } from '../../directory/types.js';
import type { MatchRow, ViewerScope } from './cached-shapes.js';
import type { PreparedReads } from '../statements/prepared-reads.js';
import type { CachePartition } from './read-cache.js';
import { ReadCache, readDirectoryVersion } from './read-cache.js';

/** A department as the department reads see it. */
export interface DepartmentRow extends MatchRow {
  team_id: string;
  parent_id: string | null;
}

/**
 * Every cache of the store's directory reads (SqlDirectory), by what it holds and which writes make it
 * stale. Weights count entries, or ids held for lists; the budgets keep one process within some tens of
 * megabytes whatever the directory's size. Search is answered from the read model in memory
 * (src/directory/read-model/), not from here.
 */
export class DirectoryCaches {
  readonly cache: ReadCache;
  /** Per user: team, departments, principals. */
  readonly viewers: CachePartition<string, ViewerScope>;
  /** Per department id (null: unknown). */
  readonly departments: CachePartition<string, DepartmentRow | null>;
  /** Per department: its ancestors from the first level down. */
  readonly departmentPaths: CachePartition<string, readonly DepartmentPathNode[]>;
  /** `department:<id>` (distinct active members of the subtree) and `team:<id>` (active members). */
  readonly memberCounts: CachePartition<string, number>;
  /** Per department: its direct active members' ids by name. */
  readonly directMembers: CachePartition<string, readonly string[]>;

  constructor(reads: PreparedReads, options: { now?: () => number } = {}) {
    this.cache = new ReadCache(() => readDirectoryVersion(reads), options);
    const people = ['people'] as const;
    this.viewers = this.cache.partition({ areas: people, maxWeight: 10_000 });
    this.departments = this.cache.partition({ areas: people, maxWeight: 50_000 });
    this.departmentPaths = this.cache.partition({ areas: people, maxWeight: 50_000 });
    this.memberCounts = this.cache.partition({ areas: people, maxWeight: 50_000 });
    this.directMembers = this.cache.partition({ areas: people, maxWeight: 50_000 });
  }

  /** Reads the version rows and drops what writes since made stale: once per request, before any read. */
  refresh(): Promise<void> {
    return this.cache.refresh();
  }
}
