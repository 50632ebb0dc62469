import { sql, type Kysely } from 'kysely';
import { ID, type ColumnTypes } from './column-types.js';
import { VERSIONED_TABLES } from './070-directory-versions.js';

/**
 * The directory's change feed (table `directory_changes`, see src/store/schema/tables/directory-changes.ts):
 * one row per changed thing, written by triggers in the transaction of the write, whoever writes (the
 * management API, an import, SCIM, LDAP, another instance, a DBA's UPDATE). The read model
 * (src/directory/read-model/) reloads the rows a change names, so the feed holds keys, not values, and
 * one row per key: a new change of a key moves its row to a new, higher id (the feed stays as large as
 * the directory, whatever the number of writes, and needs no pruning).
 *
 * Subjects and keys:
 *   team (teams.id), department (departments.id), user (users.id), membership (user_departments.user_id),
 *   file (files.id), grants (file_grants.file_id), content (file_contents.file_id),
 *   all ('' : a TRUNCATE; the reader reloads everything).
 *
 * PostgreSQL hands sequence values out before commit, so ids commit out of order; each row also holds
 * its transaction's id (`xid`), and the reader re-reads the rows of transactions still running at its
 * last read (src/store/change-feed/directory-change-feed.ts). A NOTIFY on `collab_directory` wakes other instances.
 *
 * MySQL hands AUTO_INCREMENT values out before commit too, and has no transaction id to hold: there the
 * ids come from the one row of `directory_changes_seq`, raised by the trigger and locked until the
 * writing transaction ends, so a transaction that takes an id waits for the one that took the previous
 * id to commit or roll back. Ids commit in order, as on SQLite, and `id > last seen` misses nothing. The
 * feed triggers run before 070's version triggers (PRECEDES), so every directory writer takes that lock
 * first and writers queue on it rather than deadlock on the version rows. Row triggers: one feed row per
 * written row; MySQL fires no trigger on TRUNCATE. A session that sets `@collab_feed_paused` (a rewrite
 * of the whole directory, which leaves one `all` row instead) writes no feed rows: MySQL cannot switch a
 * trigger off inside a transaction.
 */
export const MYSQL_FEED_PAUSED = '@collab_feed_paused';
export const FEED_SOURCES: ReadonlyArray<{ table: string; subject: string; key: string }> = [
  { table: 'teams', subject: 'team', key: 'id' },
  { table: 'departments', subject: 'department', key: 'id' },
  { table: 'users', subject: 'user', key: 'id' },
  { table: 'user_departments', subject: 'membership', key: 'user_id' },
  { table: 'files', subject: 'file', key: 'id' },
  { table: 'file_grants', subject: 'grants', key: 'file_id' },
  { table: 'file_contents', subject: 'content', key: 'file_id' },
];

/** The channel of the NOTIFY that every directory write sends (PostgreSQL). */
export const DIRECTORY_CHANNEL = 'collab_directory';

export function directoryChangesMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (t.dialect === 'postgres') await postgresFeed(db);
      else if (t.dialect === 'mysql') await mysqlFeed(db, t);
      else await sqliteFeed(db);
    },
  };
}

async function mysqlFeed(db: Kysely<unknown>, t: ColumnTypes): Promise<void> {
  await t
    .table(db.schema.createTable('directory_changes_seq'))
    .addColumn('id', 'bigint', (c) => c.primaryKey())
    .execute();
  await sql`INSERT INTO directory_changes_seq (id) VALUES (0)`.execute(db);
  await t
    .table(db.schema.createTable('directory_changes'))
    .addColumn('id', 'bigint', (c) => c.primaryKey())
    .addColumn('subject', t.key(16), (c) => c.notNull())
    .addColumn('key', t.key(ID), (c) => c.notNull())
    .addUniqueConstraint('directory_changes_subject_key', ['subject', 'key'])
    .execute();
  // The row of `subject` and the key `row`.`key` moves to the next id (inserted when new).
  const put = (subject: string, row: 'NEW' | 'OLD', key: string) =>
    'UPDATE directory_changes_seq SET id = id + 1; ' +
    'SELECT id INTO next_id FROM directory_changes_seq; ' +
    `INSERT INTO directory_changes (id, subject, \`key\`) VALUES (next_id, '${subject}', ${row}.${key}) ON DUPLICATE KEY UPDATE id = next_id;`;
  for (const { table, subject, key } of FEED_SOURCES) {
    const bodies = {
      insert: put(subject, 'NEW', key),
      delete: put(subject, 'OLD', key),
      update: `${put(subject, 'NEW', key)} IF NOT (OLD.${key} <=> NEW.${key}) THEN ${put(subject, 'OLD', key)} END IF;`,
    };
    for (const [name, body] of Object.entries(bodies)) {
      const order = VERSIONED_TABLES.has(table) ? `PRECEDES ${table}_version_${name} ` : '';
      await sql
        .raw(
          `CREATE TRIGGER ${table}_feed_${name} AFTER ${name.toUpperCase()} ON ${table} FOR EACH ROW ${order}` +
            `BEGIN DECLARE next_id BIGINT; IF ${MYSQL_FEED_PAUSED} IS NULL THEN ${body} END IF; END`,
        )
        .execute(db);
    }
  }
}

async function sqliteFeed(db: Kysely<unknown>): Promise<void> {
  // AUTOINCREMENT: ids never reused, so a key's new row is always above every id a reader has seen.
  // SQLite has one writer at a time: ids commit in order.
  await sql`CREATE TABLE directory_changes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    subject TEXT NOT NULL,
    key TEXT NOT NULL,
    UNIQUE (subject, key))`.execute(db);
  for (const { table, subject, key } of FEED_SOURCES) {
    // DELETE then INSERT, not INSERT OR REPLACE: an outer statement's conflict clause (an upsert) would
    // override the trigger's and fail on the feed's unique key.
    const put = (row: 'NEW' | 'OLD', when = '') =>
      `DELETE FROM directory_changes WHERE subject = '${subject}' AND key = ${row}.${key}${when.replace('WHERE', 'AND')};` +
      ` INSERT INTO directory_changes (subject, key) SELECT '${subject}', ${row}.${key}${when};`;
    await sql.raw(`CREATE TRIGGER ${table}_feed_insert AFTER INSERT ON ${table} BEGIN ${put('NEW')} END`).execute(db);
    await sql.raw(`CREATE TRIGGER ${table}_feed_delete AFTER DELETE ON ${table} BEGIN ${put('OLD')} END`).execute(db);
    await sql.raw(`CREATE TRIGGER ${table}_feed_update AFTER UPDATE ON ${table} BEGIN ${put('NEW')} ${put('OLD', ` WHERE OLD.${key} IS NOT NEW.${key}`)} END`).execute(db);
  }
}

async function postgresFeed(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE SEQUENCE directory_changes_seq`.execute(db);
  await sql`CREATE TABLE directory_changes (
    id BIGINT PRIMARY KEY DEFAULT nextval('directory_changes_seq'),
    subject TEXT NOT NULL,
    key TEXT NOT NULL,
    xid XID8 NOT NULL DEFAULT pg_current_xact_id(),
    UNIQUE (subject, key))`.execute(db);
  await sql`CREATE INDEX directory_changes_by_xid ON directory_changes (xid)`.execute(db);
  // Statement triggers over the transition tables: a bulk import writes one feed statement per statement.
  // The schema is the written table's own, so a DBA's session with another search_path is covered too.
  await sql`
    CREATE FUNCTION ch_feed_directory_change() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      keys TEXT;
    BEGIN
      IF TG_OP = 'TRUNCATE' THEN
        keys := 'SELECT ''''';
      ELSIF TG_OP = 'INSERT' THEN
        keys := format('SELECT %I FROM new_rows', TG_ARGV[1]);
      ELSIF TG_OP = 'DELETE' THEN
        keys := format('SELECT %I FROM old_rows', TG_ARGV[1]);
      ELSE
        keys := format('SELECT %I FROM new_rows UNION SELECT %I FROM old_rows', TG_ARGV[1], TG_ARGV[1]);
      END IF;
      EXECUTE format(
        'INSERT INTO %I.directory_changes (subject, key) SELECT DISTINCT %L, k.key FROM (%s) AS k (key) ORDER BY 2 '
        'ON CONFLICT (subject, key) DO UPDATE SET id = nextval(%L), xid = pg_current_xact_id()',
        TG_TABLE_SCHEMA, CASE WHEN TG_OP = 'TRUNCATE' THEN 'all' ELSE TG_ARGV[0] END, keys,
        quote_ident(TG_TABLE_SCHEMA) || '.directory_changes_seq');
      PERFORM pg_notify('${sql.raw(DIRECTORY_CHANNEL)}', TG_TABLE_SCHEMA);
      RETURN NULL;
    END
    $$`.execute(db);
  for (const { table, subject, key } of FEED_SOURCES) {
    const args = `'${subject}', '${key}'`;
    await sql
      .raw(
        `CREATE TRIGGER ${table}_feed_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows ` + `FOR EACH STATEMENT EXECUTE FUNCTION ch_feed_directory_change(${args})`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${table}_feed_update AFTER UPDATE ON ${table} REFERENCING NEW TABLE AS new_rows OLD TABLE AS old_rows ` +
          `FOR EACH STATEMENT EXECUTE FUNCTION ch_feed_directory_change(${args})`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${table}_feed_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows ` + `FOR EACH STATEMENT EXECUTE FUNCTION ch_feed_directory_change(${args})`,
      )
      .execute(db);
    await sql.raw(`CREATE TRIGGER ${table}_feed_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ch_feed_directory_change(${args})`).execute(db);
  }
}
