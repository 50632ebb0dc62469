import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * A team's users by e-mail, case-insensitive (`readTeamUsersByEmail`: every SCIM create looks for a user
 * to take over by e-mail). Without it each create read all the team's users: about half a second at
 * 100,000 users, under the directory lock, so an identity provider's first push of 10,000 users took
 * hours (bench/README.md, "SCIM run"). SQLite and PostgreSQL index the expression. MariaDB cannot index an
 * expression (nor use an indexed generated column for one, before 11.8): migration 200 gives MySQL a
 * generated column of its own to index.
 */
export function usersTeamEmailMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (t.dialect === 'mysql') return;
      await sql`CREATE INDEX users_team_email ON users (team_id, lower(email))`.execute(db);
    },
  };
}
