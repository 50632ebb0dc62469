import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * A team's users by e-mail on MySQL and MariaDB, which migration 185 left without an index: MariaDB
 * indexes no expression, so every SCIM create read all the team's users (about 100,000 rows at company
 * scale, under the directory lock). `email_key` holds the e-mail's first characters lower-cased: a
 * generated column (always right, whoever writes the row), virtual and invisible (not in `SELECT *`, so
 * backups and `storage migrate` carry the same columns as from the other stores, and never written).
 * SQLite and PostgreSQL index `lower(email)` since 185: nothing to do there.
 */
/** Characters of a lower-cased e-mail that `users.email_key` keeps (the index key stays under InnoDB's limit in utf8mb4). */
const EMAIL_KEY_LENGTH = 191;

export function usersEmailKeyMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (t.dialect !== 'mysql') return;
      await sql`ALTER TABLE users ADD COLUMN email_key VARCHAR(${sql.raw(String(EMAIL_KEY_LENGTH))}) AS (LEFT(lower(email), ${sql.raw(String(EMAIL_KEY_LENGTH))})) VIRTUAL INVISIBLE`.execute(
        db,
      );
      await sql`CREATE INDEX users_team_email ON users (team_id, email_key)`.execute(db);
    },
  };
}
