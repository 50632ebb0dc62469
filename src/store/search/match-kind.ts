/** What search matches: users, departments or files. */
export type MatchKind = 'user' | 'department' | 'file';

/** The table of each kind. */
export const MATCH_TABLE = { user: 'users', department: 'departments', file: 'files' } as const;
