import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * The directory's version rows and the triggers that raise them (table `directory_versions`, see
 * src/store/schema/tables/directory-versions.ts). Triggers, rather than the writers, so that every write
 * counts: the snapshot import, the management API, SCIM and LDAP sync, a DBA's UPDATE, another
 * instance on the same PostgreSQL.
 *
 * Areas (the row ids are fixed here; readers use DIRECTORY_AREAS):
 *   1 people  teams, departments, department_ancestors, users, user_departments (any change)
 *   2 files   files: inserts, deletes, and updates of what search matches and filters on; not of
 *             `version`, `updated_at` or `views`, which every FileContent event moves
 *   3 grants  file_grants (any change)
 *
 * SQLite and MySQL have only row triggers: one small UPDATE of a key-addressed row per written row (about
 * 0.3 µs on SQLite). PostgreSQL: statement triggers, so a bulk import raises a version once per statement.
 * MySQL fires no trigger on TRUNCATE (collab-host never truncates a directory table there).
 */
export const DIRECTORY_AREAS = { people: 1, files: 2, grants: 3 } as const;

const WATCHED: ReadonlyArray<{ table: string; area: number; columns?: readonly string[] }> = [
  { table: 'teams', area: DIRECTORY_AREAS.people },
  { table: 'departments', area: DIRECTORY_AREAS.people },
  { table: 'department_ancestors', area: DIRECTORY_AREAS.people },
  { table: 'users', area: DIRECTORY_AREAS.people },
  { table: 'user_departments', area: DIRECTORY_AREAS.people },
  { table: 'files', area: DIRECTORY_AREAS.files, columns: ['id', 'name', 'type', 'creator_id', 'team_id', 'status', 'name_pinyin', 'name_initials'] },
  { table: 'file_grants', area: DIRECTORY_AREAS.grants },
];

/** The tables with version triggers (`<table>_version_insert`, `_update`, `_delete`). */
export const VERSIONED_TABLES: ReadonlySet<string> = new Set(WATCHED.map(({ table }) => table));

export function directoryVersionsMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await t
        .table(db.schema.createTable('directory_versions'))
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('area', t.text, (c) => c.notNull())
        .addColumn('version', t.bigint, (c) => c.notNull())
        .execute();
      for (const [area, id] of Object.entries(DIRECTORY_AREAS)) {
        await sql`INSERT INTO directory_versions (id, area, version) VALUES (${id}, ${area}, 1)`.execute(db);
      }
      if (t.dialect === 'postgres') await postgresTriggers(db);
      else if (t.dialect === 'mysql') await mysqlTriggers(db);
      else await sqliteTriggers(db);
    },
  };
}

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  for (const { table, area, columns } of WATCHED) {
    const bump = `UPDATE directory_versions SET version = version + 1 WHERE id = ${area};`;
    const update = columns ? `UPDATE OF ${columns.join(', ')}` : 'UPDATE';
    for (const [name, event] of [
      ['insert', 'INSERT'],
      ['update', update],
      ['delete', 'DELETE'],
    ] as const) {
      await sql.raw(`CREATE TRIGGER ${table}_version_${name} AFTER ${event} ON ${table} BEGIN ${bump} END`).execute(db);
    }
  }
}

/** One trigger per table and operation; an update of `files` raises the version only when a watched column changed. */
async function mysqlTriggers(db: Kysely<unknown>): Promise<void> {
  for (const { table, area, columns } of WATCHED) {
    const bump = `UPDATE directory_versions SET version = version + 1 WHERE id = ${area}`;
    const changed = columns ? columns.map((column) => `NOT (OLD.${column} <=> NEW.${column})`).join(' OR ') : undefined;
    for (const [name, event] of [
      ['insert', 'INSERT'],
      ['update', 'UPDATE'],
      ['delete', 'DELETE'],
    ] as const) {
      const body = name === 'update' && changed ? `IF ${changed} THEN ${bump}; END IF` : bump;
      await sql.raw(`CREATE TRIGGER ${table}_version_${name} AFTER ${event} ON ${table} FOR EACH ROW BEGIN ${body}; END`).execute(db);
    }
  }
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION ch_bump_directory_version() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE directory_versions SET version = version + 1 WHERE id = TG_ARGV[0]::integer;
      RETURN NULL;
    END
    $$`.execute(db);
  for (const { table, area, columns } of WATCHED) {
    const update = columns ? `UPDATE OF ${columns.join(', ')}` : 'UPDATE';
    await sql
      .raw(
        `CREATE TRIGGER ${table}_version AFTER INSERT OR ${update} OR DELETE OR TRUNCATE ON ${table} ` + `FOR EACH STATEMENT EXECUTE FUNCTION ch_bump_directory_version(${area})`,
      )
      .execute(db);
  }
}
