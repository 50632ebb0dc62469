import { dialectOf } from '../dialect/dialect.js';
import { sql, type Kysely } from 'kysely';
import { dialectWork } from '../dialect/dialect-work-for.js';
import { claimedWithNotifications, type ClaimedDelivery } from './outbox.js';
import type { Database } from '../schema/schema.js';

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
      // One already in a message (claimed before a crash) goes again in that message, never in another.
      .where('d.message_key', 'is', null)
      // A subquery rather than a join: only the deliveries are locked. Correlated (EXISTS), not a list of
      // every notification of the type (`IN (SELECT …)` read all of them on each claim).
      .where(({ exists, selectFrom }) => exists(selectFrom('notifications as n').select('n.id').whereRef('n.id', '=', 'd.notification_id').where('n.type', '=', options.type)))
      .where((eb) => eb.or([eb('d.claim_token', 'is', null), eb('d.next_attempt_ms', '<=', options.nowMs)]))
      .orderBy('d.id')
      .limit(options.limit);
    if (options.exclude.length > 0) query = query.where('d.id', 'not in', [...options.exclude]);
    const ids = (await dialectWork(trx).skipLocked(query).execute()).map((row) => row.id);
    if (ids.length === 0) return [];
    return dialectOf(trx).updateReturning(
      trx,
      'notification_deliveries',
      (query) => query.where('id', 'in', ids).where('status', '=', 'pending').where('message_key', 'is', null),
      { attempts: sql<number>`attempts + 1`, next_attempt_ms: options.nowMs + options.leaseMs, claim_token: claim.claimToken },
      ['id', 'receiver', 'recipient', 'attempts', 'notification_id', 'message_key'],
    );
  });
  return claimedWithNotifications(db, claimed, claim.claimToken);
}

/**
 * Fixes a digest message before it is sent: its deliveries (held by `claimToken`, in no message yet) get
 * its idempotency key, so that whatever happens after, they go again as this message and nothing else.
 */
export async function fixDigestMessage(db: Kysely<Database>, claimToken: string, deliveryIds: readonly number[], messageKey: string): Promise<void> {
  await db
    .updateTable('notification_deliveries')
    .set({ message_key: messageKey })
    .where('id', 'in', [...deliveryIds])
    .where('claim_token', '=', claimToken)
    .where('message_key', 'is', null)
    .execute();
}

/**
 * The rest of a message fixed before (a re-claim after a crash, or a retry): its other pending deliveries
 * no live lease holds are claimed under `claim`'s token. `complete` is false when another worker holds
 * some of them: the message must then not go out in part.
 */
export async function claimMessageRest(
  db: Kysely<Database>,
  claim: ClaimedDelivery & { messageKey: string },
  options: { leaseMs: number; nowMs: number; exclude: readonly number[] },
): Promise<{ members: ClaimedDelivery[]; complete: boolean }> {
  const messageKey = claim.messageKey;
  const { claimed, complete } = await db.transaction().execute(async (trx) => {
    let query = trx
      .selectFrom('notification_deliveries')
      .select('id')
      .where('message_key', '=', messageKey)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('claim_token', 'is', null), eb('next_attempt_ms', '<=', options.nowMs)]))
      .orderBy('id');
    if (options.exclude.length > 0) query = query.where('id', 'not in', [...options.exclude]);
    const ids = (await dialectWork(trx).skipLocked(query).execute()).map((row) => row.id);
    const rows =
      ids.length === 0
        ? []
        : await dialectOf(trx).updateReturning(
            trx,
            'notification_deliveries',
            (query) => query.where('id', 'in', ids).where('status', '=', 'pending'),
            { attempts: sql<number>`attempts + 1`, next_attempt_ms: options.nowMs + options.leaseMs, claim_token: claim.claimToken },
            ['id', 'receiver', 'recipient', 'attempts', 'notification_id', 'message_key'],
          );
    const elsewhere = await trx
      .selectFrom('notification_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('message_key', '=', messageKey)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('claim_token', 'is', null), eb('claim_token', '<>', claim.claimToken)]))
      .executeTakeFirstOrThrow();
    return { claimed: rows, complete: Number(elsewhere.count) === 0 };
  });
  return { members: await claimedWithNotifications(db, claimed, claim.claimToken), complete };
}
