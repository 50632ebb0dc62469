import { sql, type Kysely } from 'kysely';
import { ID, NAME, SHORT, type ColumnTypes } from './column-types.js';

/** Teams, departments (with their closure), users, files, grants and stored file contents. */
export function directoryMigration(t: ColumnTypes) {
  const id = t.key(ID);
  const mysql = t.dialect === 'mysql';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // MySQL: the database's own default too, which values of JSON_TABLE columns take: compared with the
      // tables' columns, two different binary collations would be an error.
      if (t.collation) await sql.raw(`ALTER DATABASE CHARACTER SET utf8mb4 COLLATE ${t.collation}`).execute(db);
      await t
        .table(db.schema.createTable('teams'))
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('name', t.text, (c) => c.notNull())
        .execute();

      await t
        .table(db.schema.createTable('departments'))
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('team_id', id, (c) => c.notNull())
        .addColumn('parent_id', id)
        .addColumn('name', t.key(NAME), (c) => c.notNull())
        .addColumn('name_pinyin', t.text, (c) => c.notNull().defaultTo(t.textDefault('')))
        .addColumn('name_initials', t.text, (c) => c.notNull().defaultTo(t.textDefault('')))
        .execute();
      // MySQL: the three columns would pass an index's 768 characters; the first 250 of a name order it.
      if (mysql) await sql`CREATE INDEX departments_team_parent ON departments (team_id, parent_id, name(250))`.execute(db);
      else await db.schema.createIndex('departments_team_parent').on('departments').columns(['team_id', 'parent_id', 'name']).execute();

      await t
        .table(db.schema.createTable('department_ancestors'))
        .addColumn('department_id', id, (c) => c.notNull())
        .addColumn('ancestor_id', id, (c) => c.notNull())
        .addColumn('depth', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('department_ancestors_pk', ['department_id', 'ancestor_id'])
        .execute();
      await db.schema.createIndex('department_ancestors_by_ancestor').on('department_ancestors').columns(['ancestor_id', 'department_id']).execute();

      await t
        .table(db.schema.createTable('users'))
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('name', t.key(NAME), (c) => c.notNull())
        .addColumn('email', t.text)
        .addColumn('avatar', t.text)
        .addColumn('team_id', id)
        .addColumn('watermark', t.text)
        .addColumn('name_pinyin', t.text, (c) => c.notNull().defaultTo(t.textDefault('')))
        .addColumn('name_initials', t.text, (c) => c.notNull().defaultTo(t.textDefault('')))
        .execute();
      // MySQL: every index ends with the primary key already, and (team_id, name, id) would pass 768 characters.
      await db.schema
        .createIndex('users_team_name')
        .on('users')
        .columns(mysql ? ['team_id', 'name'] : ['team_id', 'name', 'id'])
        .execute();

      await t
        .table(db.schema.createTable('user_departments'))
        .addColumn('user_id', id, (c) => c.notNull())
        .addColumn('department_id', id, (c) => c.notNull())
        .addPrimaryKeyConstraint('user_departments_pk', ['user_id', 'department_id'])
        .execute();
      await db.schema.createIndex('user_departments_by_department').on('user_departments').columns(['department_id', 'user_id']).execute();

      await t
        .table(db.schema.createTable('files'))
        .addColumn('id', id, (c) => c.primaryKey())
        .addColumn('name', t.text, (c) => c.notNull())
        .addColumn('type', t.text, (c) => c.notNull())
        .addColumn('creator_id', id, (c) => c.notNull())
        .addColumn('team_id', id)
        .addColumn('created_at', t.key(SHORT), (c) => c.notNull())
        .addColumn('updated_at', t.key(SHORT), (c) => c.notNull())
        .addColumn('views', 'integer')
        .addColumn('ext', t.text)
        .addColumn('download_url', t.text)
        .addColumn('full_url', t.text)
        .addColumn('restrict_copy', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('restrict_export', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', t.key(SHORT), (c) => c.notNull().defaultTo('active'))
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('name_pinyin', t.text, (c) => c.notNull().defaultTo(t.textDefault('')))
        .addColumn('name_initials', t.text, (c) => c.notNull().defaultTo(t.textDefault('')))
        .execute();
      await db.schema.createIndex('files_creator_updated').on('files').columns(['creator_id', 'updated_at']).execute();
      await db.schema.createIndex('files_updated').on('files').columns(['updated_at']).execute();
      await db.schema.createIndex('files_created').on('files').columns(['created_at']).execute();

      await t
        .table(db.schema.createTable('file_grants'))
        .addColumn('file_id', id, (c) => c.notNull())
        .addColumn('principal_kind', t.key(SHORT), (c) => c.notNull())
        .addColumn('principal_id', id, (c) => c.notNull())
        .addColumn('role_rank', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('file_grants_pk', ['file_id', 'principal_kind', 'principal_id'])
        .execute();
      // The permission join starts from the viewer's principals: (kind, id) -> files.
      await db.schema.createIndex('file_grants_by_principal').on('file_grants').columns(['principal_kind', 'principal_id', 'file_id']).execute();

      await t
        .table(db.schema.createTable('file_contents'))
        .addColumn('file_id', id, (c) => c.primaryKey())
        .addColumn('content_type', t.text, (c) => c.notNull())
        .addColumn('content', t.bytes, (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .execute();
    },
  };
}
