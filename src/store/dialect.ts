/** The two SQL dialects collab-host runs on. */
export type DialectName = 'sqlite' | 'postgres';
