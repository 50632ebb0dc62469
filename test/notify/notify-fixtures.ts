import type { FastifyInstance } from 'fastify';
import { notifyConfig, type NotifyConfig } from '../../src/config/notify.js';
import { OutboxWorker } from '../../src/events/outbox-worker.js';
import { ReminderScheduler } from '../../src/events/reminder-scheduler.js';
import { ChannelDispatcher } from '../../src/notify/dispatcher.js';
import { NotificationRouter } from '../../src/notify/routing.js';
import type { OpenDatabase } from '../../src/store/connection/database.js';
import { seedDirectory } from '../helpers/directory-fixture.js';
import { ADMIN_KEY, admin, buildEventApp, commentCreate, postEvent, tokenHeaders } from '../events/event-fixtures.js';

export { admin, ADMIN_KEY };

/** The integrator's document address of the notification tests. */
export const DOCUMENT_URL = 'https://oa.example.com/docs/{fileId}';

/**
 * The demo directory, an app whose pipeline runs on a test clock, and an outbox worker with the channel
 * dispatcher on the same clock: `deliver()` sends what is due at `clock.now`.
 */
export async function notifyHarness(store: OpenDatabase, env: Record<string, string>, options: { maxAttempts?: number } = {}) {
  await seedDirectory(store.db);
  const notify: NotifyConfig = notifyConfig((name) => env[name], DOCUMENT_URL);
  const clock = { now: Date.now() };
  const now = () => clock.now;
  const { app, settle } = await buildEventApp(store, { adminApiKey: ADMIN_KEY, notify }, { now });
  const dispatcher = new ChannelDispatcher(store.db, notify, { now, log: { info() {}, warn() {} } });
  const worker = new OutboxWorker(store, { secret: undefined, now, channels: dispatcher, maxAttempts: options.maxAttempts ?? 3, baseDelayMs: 1000, maxDelayMs: 60_000 });
  const reminders = new ReminderScheduler(store, { receivers: [], now, router: new NotificationRouter(notify, []) });
  let sequence = 0;
  return {
    app,
    clock,
    settle,
    reminders,
    /** Sends every delivery due now (as many batches as it takes). */
    deliver: async () => {
      let sent = 0;
      for (let batch = await worker.runOnce(); batch > 0; batch = await worker.runOnce()) sent += batch;
      return sent;
    },
    /** `author` comments on `fileId`, mentioning `mentioned`; the effects are derived at once. */
    comment: async (author: string, fileId: string, content: string, extra: Record<string, unknown> = {}) => {
      sequence += 1;
      const guid = `c-${sequence}-${Date.now()}`;
      const response = await postEvent(app, 'Comment', commentCreate(fileId, author, { guid, content, ...extra }), tokenHeaders(author));
      if (response.statusCode !== 200) throw new Error(`comment answered ${response.statusCode}`);
      await settle();
      return guid;
    },
    api: (app_: FastifyInstance = app) => ({
      get: async (url: string) => app_.inject({ method: 'GET', url, headers: admin }),
      put: async (url: string, payload: unknown) => app_.inject({ method: 'PUT', url, headers: admin, payload: payload as Record<string, unknown> }),
      del: async (url: string) => app_.inject({ method: 'DELETE', url, headers: admin }),
      post: async (url: string) => app_.inject({ method: 'POST', url, headers: admin }),
    }),
  };
}

/** A user's complete record through the management API, changed and put back. */
export async function changeUser(app: FastifyInstance, userId: string, change: Record<string, unknown>): Promise<void> {
  const current = (await app.inject({ method: 'GET', url: `/api/users/${userId}`, headers: admin })).json() as Record<string, unknown>;
  const response = await app.inject({ method: 'PUT', url: `/api/users/${userId}`, headers: admin, payload: { ...current, ...change } });
  if (response.statusCode !== 200) throw new Error(`PUT /api/users/${userId} answered ${response.statusCode}: ${response.body}`);
}
