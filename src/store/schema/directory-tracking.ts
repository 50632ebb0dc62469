/**
 * The names run-time code shares with the migrations that track directory writes (070 and 110). A
 * migration is frozen once released and nothing at run time imports one, so these are copies of the
 * values those migrations wrote into the database; test/store/migrations.test.ts checks that they agree.
 */

/** The version rows of the directory's areas (migration 070). */
export const DIRECTORY_AREAS = { people: 1, files: 2, grants: 3 } as const;

/** The tables whose writes the change feed records, with the subject and key column of their rows (migration 110). */
export const FEED_SOURCES: ReadonlyArray<{ table: string; subject: string; key: string }> = [
  { table: 'teams', subject: 'team', key: 'id' },
  { table: 'departments', subject: 'department', key: 'id' },
  { table: 'users', subject: 'user', key: 'id' },
  { table: 'user_departments', subject: 'membership', key: 'user_id' },
  { table: 'files', subject: 'file', key: 'id' },
  { table: 'file_grants', subject: 'grants', key: 'file_id' },
  { table: 'file_contents', subject: 'content', key: 'file_id' },
];

/** The channel of the NOTIFY that every directory write sends (PostgreSQL, migration 110). */
export const DIRECTORY_CHANNEL = 'collab_directory';
