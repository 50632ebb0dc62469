import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { adminKeyGuard } from '../auth/admin-key-guard.js';
import { filePresence, listEvents, listNotifications, listReminders } from '../events/event-queries.js';
import { resendNotification } from '../events/outbox.js';
import { badRequest, conflict, notFound } from '../http/errors.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';

/** Lists page with an opaque cursor: the position after the last item shown. */
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

const encodeCursor = (position: number | null) => (position === null ? null : Buffer.from(`p${position}`).toString('base64url'));
function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const match = /^p(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw badRequest('cursor is not one this API gave out', 'invalid_cursor');
  return Number(match[1]);
}

const pageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
};
const pageOf = <T extends ReturnType<typeof Type.Object>>(item: T) =>
  Type.Object({ items: Type.Array(item), nextCursor: Type.Union([Type.String(), Type.Null()]) });

const EventItem = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  action: Type.Union([Type.String(), Type.Null()]),
  fileId: Type.Union([Type.String(), Type.Null()]),
  userId: Type.Union([Type.String(), Type.Null()]),
  receivedAt: TimeSchema,
  body: Type.Unknown({ description: 'the event as received' }),
});
const NotificationStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);
const NotificationItem = Type.Object({
  id: Type.String(),
  type: Type.String(),
  status: NotificationStatus,
  attempts: Type.Integer(),
  occurredAt: TimeSchema,
  data: Type.Unknown(),
  deliveries: Type.Array(
    Type.Object({
      receiver: Type.String(),
      status: NotificationStatus,
      attempts: Type.Integer(),
      lastError: Type.Union([Type.String(), Type.Null()]),
      deliveredAt: Type.Union([TimeSchema, Type.Null()]),
    }),
    { description: 'one per receiver in NOTIFY_WEBHOOK_URLS when the notification was made' },
  ),
});
const ReminderItem = Type.Object({
  id: Type.String(),
  fileId: Type.String(),
  authorId: Type.String(),
  content: Type.String(),
  remindUserIds: Type.Array(Type.String()),
  remindAt: TimeSchema,
  status: Type.Union([Type.Literal('scheduled'), Type.Literal('fired'), Type.Literal('cancelled')]),
});
const PresenceBody = Type.Object({
  fileId: Type.String(),
  users: Type.Array(Type.Object({ userId: Type.String(), clients: Type.Array(Type.String()), since: TimeSchema })),
});

/** The management API's event listings (contracts.md): events, notifications (+ re-send), reminders, presence. */
export default async function eventManagementRoutes(app: FastifyInstance, { context }: { context: AppContext }): Promise<void> {
  const { db } = context.store;
  app.addHook('onRequest', adminKeyGuard(context.config.adminApiKey));
  const security = [{ adminKey: [] }];
  const refusals = errorResponses(400, 401, 404);

  app.get(
    '/api/events',
    {
      schema: {
        summary: 'The event log, oldest first',
        tags: ['management'],
        security,
        querystring: Type.Object({
          fileId: Type.Optional(Type.String()),
          kind: Type.Optional(Type.String({ description: "the header's kind: Comment, FileContent, …" })),
          since: Type.Optional(TimeSchema),
          ...pageQuery,
        }),
        response: { 200: pageOf(EventItem), ...refusals },
      },
    },
    async (request) => {
      const { fileId, kind, since, limit, cursor } = request.query as { fileId?: string; kind?: string; since?: string; limit: number; cursor?: string };
      const page = await listEvents(db, { fileId, kind, since, after: decodeCursor(cursor), limit });
      return { items: page.items, nextCursor: encodeCursor(page.next) };
    },
  );

  app.get(
    '/api/notifications',
    {
      schema: {
        summary: 'Outgoing notifications, oldest first',
        tags: ['management'],
        security,
        querystring: Type.Object({ status: Type.Optional(NotificationStatus), ...pageQuery }),
        response: { 200: pageOf(NotificationItem), ...refusals },
      },
    },
    async (request) => {
      const { status, limit, cursor } = request.query as { status?: string; limit: number; cursor?: string };
      const page = await listNotifications(db, { status, after: decodeCursor(cursor), limit });
      return { items: page.items, nextCursor: encodeCursor(page.next) };
    },
  );

  app.post(
    '/api/notifications/:notificationId/resend',
    {
      schema: {
        summary: 'Send a failed notification again to the receivers that failed',
        tags: ['management'],
        security,
        params: Type.Object({ notificationId: Type.String({ minLength: 1 }) }),
        response: { 200: Type.Object({ id: Type.String(), status: Type.Literal('pending') }), ...errorResponses(401, 404, 409) },
      },
    },
    async (request) => {
      const { notificationId } = request.params as { notificationId: string };
      const outcome = await resendNotification(db, notificationId, Date.now());
      if (outcome === 'not_found') throw notFound(`no notification ${notificationId}`, 'notification_not_found');
      if (outcome === 'not_failed') throw conflict('only a failed notification can be re-sent', 'notification_not_failed');
      return { id: notificationId, status: 'pending' as const };
    },
  );

  app.get(
    '/api/reminders',
    {
      schema: {
        summary: 'Date reminders in the order they were created',
        tags: ['management'],
        security,
        querystring: Type.Object({ fileId: Type.Optional(Type.String()), ...pageQuery }),
        response: { 200: pageOf(ReminderItem), ...refusals },
      },
    },
    async (request) => {
      const { fileId, limit, cursor } = request.query as { fileId?: string; limit: number; cursor?: string };
      const page = await listReminders(db, { fileId, after: decodeCursor(cursor), limit });
      return { items: page.items, nextCursor: encodeCursor(page.next) };
    },
  );

  app.get(
    '/api/files/:fileId/presence',
    {
      schema: {
        summary: 'Who has the file open now, with their clients',
        tags: ['management'],
        security,
        params: Type.Object({ fileId: Type.String({ minLength: 1 }) }),
        response: { 200: PresenceBody, ...errorResponses(401, 404) },
      },
    },
    async (request) => filePresence(db, (request.params as { fileId: string }).fileId),
  );
}
