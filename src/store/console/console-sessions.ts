import type { ConsoleSessionStore } from '../../auth/console-sessions.js';
import type { Db } from '../schema/schema.js';

/** The console's sessions in the store's `console_sessions` table. */
export function sqlConsoleSessions(db: Db): ConsoleSessionStore {
  return {
    async insert(session) {
      await db.insertInto('console_sessions').values({ id: session.id, created_at: session.createdAt, expires_ms: session.expiresMs }).execute();
    },
    async findLive(id, nowMs) {
      const row = await db.selectFrom('console_sessions').select('expires_ms').where('id', '=', id).where('expires_ms', '>', nowMs).executeTakeFirst();
      return row && { expiresMs: Number(row.expires_ms) };
    },
    async remove(id) {
      const result = await db.deleteFrom('console_sessions').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async removeExpired(nowMs) {
      const result = await db.deleteFrom('console_sessions').where('expires_ms', '<=', nowMs).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
