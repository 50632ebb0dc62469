import type pg from 'pg';
import { HOT_SQL, forPostgres } from './hot-read-sql.js';
import type { FileWithRankRow, HotReads, UserRow } from './hot-reads.js';

const USER = forPostgres(HOT_SQL.userById);
const GRANT = forPostgres(HOT_SQL.grantedRank);
const FILE_AND_GRANT = forPostgres(HOT_SQL.fileWithGrant);

/**
 * The lookups of every document open as named (prepared) statements on the pool: PostgreSQL plans each
 * once per connection instead of on every call, and planning the grant join took longer (milliseconds)
 * than running it.
 */
export class PostgresHotReads implements HotReads {
  constructor(private readonly pool: pg.Pool) {}

  async userById(userId: string): Promise<UserRow | undefined> {
    return (await this.pool.query<UserRow>({ name: 'ch_user_by_id', text: USER, values: [userId] })).rows[0];
  }

  async grantedRank(fileId: string, userId: string): Promise<number | null> {
    const { rows } = await this.pool.query<{ rank: number | null }>({ name: 'ch_granted_rank', text: GRANT, values: [fileId, userId] });
    return rows[0]?.rank ?? null;
  }

  async fileWithGrant(fileId: string, userId: string): Promise<FileWithRankRow | undefined> {
    const { rows } = await this.pool.query<FileWithRankRow>({ name: 'ch_file_with_grant', text: FILE_AND_GRANT, values: [fileId, userId] });
    return rows[0];
  }
}
