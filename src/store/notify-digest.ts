import { sql, type Kysely } from 'kysely';
import { dialectWork } from './dialect-work-for.js';
import { claimedWithNotifications, type ClaimedDelivery } from './outbox.js';
import type { Database } from './schema.js';

/**
 * The rest of a person's digest: when one personal notice of a type (a mention) is claimed to be sent,
 * the other pending ones of the same type for the same person through the same receiver, due or still
 * waiting in their window, are claimed with it under the same claim token, so one message carries them
 * all and each is recorded by the same worker. Rows another worker holds (a live lease) are passed over.
 */
export async function claimDigestSiblings(
  db: Kysely<Database>,
  claim: ClaimedDelivery,
  options: { type: string; leaseMs: number; nowMs: number; limit: number; exclude: readonly number[] },
): Promise<ClaimedDelivery[]> {
  if (claim.recipient === null) return [];
  const recipient = claim.recipient;
  const claimed = await db.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom('notification_deliveries as d')
      .select('d.id')
      .where('d.receiver', '=', claim.receiver)
      .where('d.recipient', '=', recipient)
      .where('d.status', '=', 'pending')
      // A subquery rather than a join: only the deliveries are locked.
      .where('d.notification_id', 'in', (eb) => eb.selectFrom('notifications').select('notifications.id').where('notifications.type', '=', options.type))
      .where((eb) => eb.or([eb('d.claim_token', 'is', null), eb('d.next_attempt_ms', '<=', options.nowMs)]))
      .orderBy('d.id')
      .limit(options.limit);
    if (options.exclude.length > 0) query = query.where('d.id', 'not in', [...options.exclude]);
    const ids = (await dialectWork(trx).skipLocked(query).execute()).map((row) => row.id);
    if (ids.length === 0) return [];
    return trx
      .updateTable('notification_deliveries')
      .set({ attempts: sql<number>`attempts + 1`, next_attempt_ms: options.nowMs + options.leaseMs, claim_token: claim.claimToken })
      .where('id', 'in', ids)
      .where('status', '=', 'pending')
      .returning(['id', 'receiver', 'recipient', 'attempts', 'notification_id'])
      .execute();
  });
  return claimedWithNotifications(db, claimed, claim.claimToken);
}
