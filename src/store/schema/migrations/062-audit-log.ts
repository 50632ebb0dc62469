import type { Kysely } from 'kysely';
import { ID, SHORT, type ColumnTypes } from './column-types.js';

/** The append-only audit log (src/store/audit-log.ts): listed by time, kind, actor and file. */
export function auditLogMigration(t: ColumnTypes) {
  const { text } = t;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await t
        .table(db.schema.createTable('audit_log'))
        .addColumn('id', t.serial, t.serialKey)
        .addColumn('at', t.key(SHORT), (c) => c.notNull())
        .addColumn('kind', text, (c) => c.notNull())
        .addColumn('actor_id', t.key(ID))
        .addColumn('credential', text, (c) => c.notNull())
        .addColumn('file_id', t.key(ID))
        .addColumn('action', text, (c) => c.notNull())
        .addColumn('permissions', text)
        .addColumn('details', text)
        .execute();
      await db.schema.createIndex('audit_by_time').on('audit_log').columns(['at', 'id']).execute();
      await db.schema.createIndex('audit_by_file').on('audit_log').columns(['file_id', 'id']).execute();
      await db.schema.createIndex('audit_by_actor').on('audit_log').columns(['actor_id', 'id']).execute();
    },
  };
}
