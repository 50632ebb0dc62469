/**
 * The shapes the read caches hold (src/store/directory-caches.ts), apart from the code that computes them so
 * that the caches, the read context and the readers do not import each other in a circle.
 */

/** A principal a grant names: `kind:id` (user, team or department). */
export type PrincipalKey = `${'user' | 'team' | 'department'}:${string}`;

/**
 * What every search and file check of one user needs to know about them, read once and cached until a
 * write to the people area (src/store/read-cache.ts): their team, their departments, and the principals
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

/** The columns a tier is computed from (users also have an e-mail address). */
export interface MatchRow {
  id: string;
  name: string;
  email?: string | null;
  name_pinyin: string;
  name_initials: string;
}

/**
 * The matches of one keyword in one scope, ranked by what does not depend on who searches: tier, then
 * name and id (users, departments) or `updatedAt`, name and id (files). Who searches adds their own
 * order on top (contacts, their departments, files they touched) from small sets of their own.
 */
export interface MatchList {
  ids: readonly string[];
  /** The tier of each id. */
  tiers: Uint8Array;
  /** Matches found, before the list kept its first ones. */
  found: number;
  /** The scan bound was reached: more rows may match than were read. */
  truncated: boolean;
}

/** A file list also finds an id's position, and keeps its intersections with principals' files. */
export interface FileList extends MatchList {
  positionOf(fileId: string): number | undefined;
  /** Positions (ascending) of the list's files granted to a principal; valid for one `intersectionsOf`. */
  intersections: Map<PrincipalKey, Int32Array>;
  /** The generation of the principal-file cache the intersections were computed against. */
  intersectionsOf: number;
}
