/**
 * One row per area of the directory, its `version` raised by database triggers on every write to the
 * area's tables (migration 070), whoever writes: the read caches (src/store/directory-reads/read-cache.ts) compare it
 * to drop what a write made stale, in this process and in every other instance on the same database.
 */
export interface DirectoryVersionTables {
  directory_versions: {
    /** 1 people (teams, departments, their closure, users, memberships), 2 files, 3 grants. */
    id: number;
    area: string;
    version: number;
  };
}
