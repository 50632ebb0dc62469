/**
 * What the validation of an upsert needs to know about rows already in the store: records of the
 * snapshot may point to them. Every method takes the ids asked about and answers only for those,
 * so a one-record check costs a few indexed lookups, not a scan. The store implements it
 * (src/store/directory-reads/directory-lookups.ts), inside the write's transaction.
 */
export interface ExistingDirectory {
  /** The ids among `ids` that are teams in the store. */
  teams(ids: readonly string[]): Promise<Set<string>>;
  /** The departments among `ids`, with their team and parent. */
  departments(ids: readonly string[]): Promise<Map<string, { teamId: string; parentId: string | null }>>;
  /** The users among `ids`, with their team. */
  users(ids: readonly string[]): Promise<Map<string, { teamId: string | null }>>;
  /** The files among `ids` whose bytes the store holds. */
  filesWithStoredContent(ids: readonly string[]): Promise<Set<string>>;
}

/** Nothing exists: what a `--replace` import is checked against. */
export const EMPTY_DIRECTORY: ExistingDirectory = {
  teams: async () => new Set(),
  departments: async () => new Map(),
  users: async () => new Map(),
  filesWithStoredContent: async () => new Set(),
};

/**
 * The store as it will be once `removed` ids are gone: a change that removes some records and upserts
 * others is checked against what remains.
 */
export function withoutRemoved(
  existing: ExistingDirectory,
  removed: { teams: ReadonlySet<string>; departments: ReadonlySet<string>; users: ReadonlySet<string>; files: ReadonlySet<string> },
): ExistingDirectory {
  const keep = (ids: readonly string[], gone: ReadonlySet<string>) => (gone.size === 0 ? [...ids] : ids.filter((id) => !gone.has(id)));
  return {
    teams: (ids) => existing.teams(keep(ids, removed.teams)),
    departments: (ids) => existing.departments(keep(ids, removed.departments)),
    users: (ids) => existing.users(keep(ids, removed.users)),
    filesWithStoredContent: (ids) => existing.filesWithStoredContent(keep(ids, removed.files)),
  };
}
