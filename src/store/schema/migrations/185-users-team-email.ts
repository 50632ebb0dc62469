import { sql, type Kysely } from 'kysely';

/**
 * A team's users by e-mail, case-insensitive (`readTeamUsersByEmail`: every SCIM create looks for a user
 * to take over by e-mail). Without it each create read all the team's users: about half a second at
 * 100,000 users, under the directory lock, so an identity provider's first push of 10,000 users took
 * hours (bench/README.md, "SCIM run"). Both dialects index the expression.
 */
export function usersTeamEmailMigration() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`CREATE INDEX users_team_email ON users (team_id, lower(email))`.execute(db);
    },
  };
}
