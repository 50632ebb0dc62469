import type { Kysely } from 'kysely';
import type { DialectName } from '../../dialect/dialect.js';

/** The append-only audit log (src/store/audit/audit-log.ts): listed by time, kind, actor and file. */
export function auditLogMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('audit_log')
        .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', (c) => c.primaryKey())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('actor_id', 'text')
        .addColumn('credential', 'text', (c) => c.notNull())
        .addColumn('file_id', 'text')
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('permissions', 'text')
        .addColumn('details', 'text')
        .execute();
      await db.schema.createIndex('audit_by_time').on('audit_log').columns(['at', 'id']).execute();
      await db.schema.createIndex('audit_by_file').on('audit_log').columns(['file_id', 'id']).execute();
      await db.schema.createIndex('audit_by_actor').on('audit_log').columns(['actor_id', 'id']).execute();
    },
  };
}
