/**
 * The shapes the read caches hold (src/store/directory-reads/directory-caches.ts), apart from the code that computes them so
 * that the caches, the read context and the readers do not import each other in a circle.
 */

/** A principal a grant names: `kind:id` (user, team or department). */
export type PrincipalKey = `${'user' | 'team' | 'department'}:${string}`;

/**
 * What every search and file check of one user needs to know about them, read once and cached until a
 * write to the people area (src/store/directory-reads/read-cache.ts): their team, their departments, and the principals
 * a grant reaches them through (contracts.md's permission model).
 */
export interface ViewerScope {
  userId: string;
  /** false for an unknown user. */
  exists: boolean;
  /** false for a deactivated (or unknown) user. */
  active: boolean;
  teamId: string | null;
  /** The user's own departments. */
  departmentIds: readonly string[];
  /** Those departments and all their ancestors, each once. */
  departmentTree: readonly string[];
  /** The user, their team, and every department of `departmentTree`. */
  principals: readonly PrincipalKey[];
}

/** A named row of the directory with its search keys. */
export interface MatchRow {
  id: string;
  name: string;
  email?: string | null;
  name_pinyin: string;
  name_initials: string;
}
