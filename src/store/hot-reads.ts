import type { Selectable } from 'kysely';
import type { Database } from './schema.js';

export type UserRow = Selectable<Database['users']>;
export type FileWithRankRow = Selectable<Database['files']> & { has_content: number; granted_rank: number | null };

/** The lookups of every document open, as prepared statements (sqlite-hot-reads, postgres-hot-reads). */
export interface HotReads {
  userById(userId: string): UserRow | undefined | Promise<UserRow | undefined>;
  /** The strongest role rank any grant gives the user on the file, or null. */
  grantedRank(fileId: string, userId: string): number | null | Promise<number | null>;
  /** The file (any status) with the user's strongest granted rank beside it. */
  fileWithGrant(fileId: string, userId: string): FileWithRankRow | undefined | Promise<FileWithRankRow | undefined>;
}
