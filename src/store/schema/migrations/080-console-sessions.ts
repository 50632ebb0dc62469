import type { Kysely } from 'kysely';
import type { DialectName } from '../../dialect/dialect.js';

/** Sessions of the operator console (src/auth/console-sessions.ts): sign-out deletes the row. */
export function consoleSessionsMigration(dialect: DialectName) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('console_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_ms', dialect === 'postgres' ? 'bigint' : 'integer', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('console_sessions_by_expiry').on('console_sessions').column('expires_ms').execute();
    },
  };
}
