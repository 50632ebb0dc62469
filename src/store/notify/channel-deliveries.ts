import type { ChannelDelivery, ReceiverSummary } from '../../notify/channel-shapes.js';
import type { Db } from '../schema/schema.js';

export const EMPTY_SUMMARY: ReceiverSummary = Object.freeze({ pending: 0, delivered: 0, failed: 0, lastError: null, lastErrorAt: null });

/** The outbox seen per receiver (a channel's `channel:<id>`): the console's deliveries per channel. */
export const channelDeliveries = {
  async summaries(db: Db, receivers: readonly string[]): Promise<Map<string, ReceiverSummary>> {
    const found = new Map<string, ReceiverSummary>();
    if (receivers.length === 0) return found;
    const counts = await db
      .selectFrom('notification_deliveries')
      .select(['receiver', 'status', (eb) => eb.fn.countAll<number>().as('count')])
      .where('receiver', 'in', [...receivers])
      .groupBy(['receiver', 'status'])
      .execute();
    for (const row of counts) {
      const summary = found.get(row.receiver) ?? { ...EMPTY_SUMMARY };
      if (row.status === 'pending' || row.status === 'delivered' || row.status === 'failed') summary[row.status] = Number(row.count);
      found.set(row.receiver, summary);
    }
    for (const receiver of found.keys()) {
      const last = await db
        .selectFrom('notification_deliveries as d')
        .innerJoin('notifications as n', 'n.id', 'd.notification_id')
        .select(['d.last_error', 'n.created_at'])
        .where('d.receiver', '=', receiver)
        .where('d.last_error', 'is not', null)
        .orderBy('d.id', 'desc')
        .limit(1)
        .executeTakeFirst();
      if (last) Object.assign(found.get(receiver)!, { lastError: last.last_error, lastErrorAt: last.created_at });
    }
    return found;
  },

  /** A receiver's deliveries, newest first, before `before` (a delivery id; 0: from the newest). */
  async list(db: Db, receiver: string, filter: { status?: string; before: number; limit: number }): Promise<{ items: ChannelDelivery[]; next: number | null }> {
    let query = db
      .selectFrom('notification_deliveries as d')
      .innerJoin('notifications as n', 'n.id', 'd.notification_id')
      .select(['d.id', 'd.notification_id', 'n.type', 'n.occurred_at', 'd.recipient', 'd.status', 'd.attempts', 'd.last_error', 'd.delivered_at'])
      .where('d.receiver', '=', receiver);
    if (filter.status !== undefined) query = query.where('d.status', '=', filter.status);
    if (filter.before > 0) query = query.where('d.id', '<', filter.before);
    const rows = await query
      .orderBy('d.id', 'desc')
      .limit(filter.limit + 1)
      .execute();
    const shown = rows.slice(0, filter.limit);
    return {
      items: shown.map((row) => ({
        notificationId: row.notification_id,
        type: row.type,
        occurredAt: row.occurred_at,
        recipient: row.recipient,
        status: row.status,
        attempts: row.attempts,
        lastError: row.last_error,
        deliveredAt: row.delivered_at,
      })),
      next: rows.length > filter.limit ? Number(shown.at(-1)!.id) : null,
    };
  },
};
