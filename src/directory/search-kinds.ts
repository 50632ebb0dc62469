/**
 * The `type` tokens of POST /search (interface 4.5) and the response key each one fills. `type` is a
 * comma-separated list; tokens are trimmed and compared in lower case; unknown tokens are ignored so a
 * newer platform asking for a kind this version does not know still gets the kinds it does.
 */
export const SEARCH_KINDS = {
  file_name: 'files',
  recent_contact: 'recentUsers',
  collaborator: 'collaborators',
  team_member: 'teamMembers',
  department: 'department',
} as const;

export type SearchKind = keyof typeof SEARCH_KINDS;
export type SearchResponseKey = (typeof SEARCH_KINDS)[SearchKind];

export function isSearchKind(token: string): token is SearchKind {
  return Object.hasOwn(SEARCH_KINDS, token);
}

/** The known kinds named in `type`, each once. */
export function parseSearchKinds(type: string): Set<SearchKind> {
  const kinds = new Set<SearchKind>();
  for (const raw of type.split(',')) {
    const token = raw.trim().toLowerCase();
    if (isSearchKind(token)) kinds.add(token);
  }
  return kinds;
}
