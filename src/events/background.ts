import { webhookSecrets } from '../auth/key-rotation.js';
import type { Config } from '../config/config.js';
import type { OpenDatabase } from '../store/connection/database.js';
import { ChannelDispatcher } from '../notify/dispatcher.js';
import { NotificationRouter } from '../notify/routing.js';
import { OutboxWorker, type OutboxWorkerOptions } from './outbox-worker.js';
import type { TaskLog } from './polling-task.js';
import { ReminderScheduler, type ReminderSchedulerOptions } from './reminder-scheduler.js';

export interface EventTasksOptions {
  outbox?: Omit<OutboxWorkerOptions, 'secret' | 'log'>;
  reminders?: Omit<ReminderSchedulerOptions, 'receivers' | 'log' | 'onFired' | 'router'>;
}

/**
 * Starts the reminder scheduler and the outbox worker over the store; the server stops them on close.
 * Tests start them with short intervals through `options`.
 */
export function startEventTasks(config: Config, store: OpenDatabase, log: TaskLog, options: EventTasksOptions = {}): [ReminderScheduler, OutboxWorker] {
  if (config.notifyWebhookUrls.length > 0 && config.notifyWebhookSecret === undefined) {
    log.warn({}, 'NOTIFY_WEBHOOK_SECRET is not set: notifications are sent without X-Collab-Signature');
  }
  const now = options.outbox?.now ?? Date.now;
  const channels = new ChannelDispatcher(store.db, config.notify, { now, log });
  const outbox = new OutboxWorker(store, { ...options.outbox, secret: webhookSecrets(config), log, channels }).start();
  const reminders = new ReminderScheduler(store, {
    ...options.reminders,
    receivers: config.notifyWebhookUrls,
    router: new NotificationRouter(config.notify, config.notifyWebhookUrls),
    log,
    onFired: () => outbox.wake(),
  }).start();
  return [reminders, outbox];
}
