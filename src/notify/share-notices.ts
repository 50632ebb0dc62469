import { randomUUID } from 'node:crypto';
import type { NotifyConfig } from '../config/notify.js';
import { outbox, type NotificationDraft } from '../store/notify/outbox.js';
import type { Db } from '../store/schema/schema.js';
import { NotificationRouter } from './routing.js';

/** A file newly shared with one person (src/directory-changes/record-changes.ts `NewShare`). */
interface Share {
  fileId: string;
  userId: string;
  role: string;
  byUserId: string | null;
}

/**
 * The `file.shared` notice of a grant that gives a person a file they had no grant on
 * (docs/notifications.md): routed like every personal notice, in the grant's own transaction, so a grant
 * that rolls back notifies no one and one that commits is never without its notice. A role changed on
 * an existing grant, or a grant to a department or team, notifies no one.
 */
export function shareNotices(config: { notify: NotifyConfig; notifyWebhookUrls: readonly string[] }, now: () => number = Date.now) {
  const router = new NotificationRouter(config.notify, config.notifyWebhookUrls);
  return async (db: Db, share: Share): Promise<void> => {
    const nowMs = now();
    const draft: NotificationDraft = {
      type: 'file.shared',
      occurredAt: new Date(nowMs).toISOString(),
      data: { fileId: share.fileId, userId: share.userId, role: share.role, byUserId: share.byUserId },
      // Each grant is its own fact: sharing again after an unshare notifies again.
      dedupeKey: `file.shared:${randomUUID()}`,
      eventId: null,
    };
    await outbox.enqueue(db, await router.route(db, [draft], nowMs), config.notifyWebhookUrls, nowMs);
  };
}
