import { sql, type Kysely } from 'kysely';
import type { ColumnTypes } from './column-types.js';

/**
 * The authenticated sender of every event (the token's user; null on signed and unsigned pushes), so that
 * re-processing holds the event to the trust rules with the user who really sent it. Events logged before
 * get it where the log already knew it: an accepted token event's actor is the token's user, and so is a
 * refused one's, unless the refusal was that the body named someone else (then the sender stays unknown).
 */
export function eventSenderMigration(t: ColumnTypes) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('events').addColumn('sender_id', t.text).execute();
      await sql`UPDATE events SET sender_id = user_id
                WHERE credential IN ('token', 'token-expired')
                  AND (outcome <> 'refused' OR problem IS NULL OR problem NOT LIKE 'actor_mismatch%')`.execute(db);
    },
  };
}
