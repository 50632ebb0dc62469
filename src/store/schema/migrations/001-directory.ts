import type { Kysely } from 'kysely';
import type { DialectName } from '../../dialect/dialect.js';

/** Teams, departments (with their closure), users, files, grants and stored file contents. */
export function directoryMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('teams')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('departments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('team_id', 'text', (c) => c.notNull())
        .addColumn('parent_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_pinyin', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('name_initials', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('departments_team_parent').on('departments').columns(['team_id', 'parent_id', 'name']).execute();

      await db.schema
        .createTable('department_ancestors')
        .addColumn('department_id', 'text', (c) => c.notNull())
        .addColumn('ancestor_id', 'text', (c) => c.notNull())
        .addColumn('depth', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('department_ancestors_pk', ['department_id', 'ancestor_id'])
        .execute();
      await db.schema
        .createIndex('department_ancestors_by_ancestor')
        .on('department_ancestors')
        .columns(['ancestor_id', 'department_id'])
        .execute();

      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('avatar', 'text')
        .addColumn('team_id', 'text')
        .addColumn('watermark', 'text')
        .addColumn('name_pinyin', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('name_initials', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('users_team_name').on('users').columns(['team_id', 'name', 'id']).execute();

      await db.schema
        .createTable('user_departments')
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('department_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('user_departments_pk', ['user_id', 'department_id'])
        .execute();
      await db.schema
        .createIndex('user_departments_by_department')
        .on('user_departments')
        .columns(['department_id', 'user_id'])
        .execute();

      await db.schema
        .createTable('files')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('creator_id', 'text', (c) => c.notNull())
        .addColumn('team_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('views', 'integer')
        .addColumn('ext', 'text')
        .addColumn('download_url', 'text')
        .addColumn('full_url', 'text')
        .addColumn('restrict_copy', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('restrict_export', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('name_pinyin', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('name_initials', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('files_creator_updated').on('files').columns(['creator_id', 'updated_at']).execute();
      await db.schema.createIndex('files_updated').on('files').columns(['updated_at']).execute();
      await db.schema.createIndex('files_created').on('files').columns(['created_at']).execute();

      await db.schema
        .createTable('file_grants')
        .addColumn('file_id', 'text', (c) => c.notNull())
        .addColumn('principal_kind', 'text', (c) => c.notNull())
        .addColumn('principal_id', 'text', (c) => c.notNull())
        .addColumn('role_rank', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('file_grants_pk', ['file_id', 'principal_kind', 'principal_id'])
        .execute();
      // The permission join starts from the viewer's principals: (kind, id) -> files.
      await db.schema
        .createIndex('file_grants_by_principal')
        .on('file_grants')
        .columns(['principal_kind', 'principal_id', 'file_id'])
        .execute();

      await db.schema
        .createTable('file_contents')
        .addColumn('file_id', 'text', (c) => c.primaryKey())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('content', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
        .addColumn('size', 'integer', (c) => c.notNull())
        .execute();
    },
  };
}
