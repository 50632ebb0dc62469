import type { Kysely } from 'kysely';
import { ID, type ColumnTypes } from './column-types.js';

/** Sessions of the operator console (src/auth/console-sessions.ts): sign-out deletes the row. */
export function consoleSessionsMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await t
        .table(db.schema.createTable('console_sessions'))
        .addColumn('id', t.key(ID), (c) => c.primaryKey())
        .addColumn('created_at', t.text, (c) => c.notNull())
        .addColumn('expires_ms', t.bigint, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('console_sessions_by_expiry').on('console_sessions').column('expires_ms').execute();
    },
  };
}
