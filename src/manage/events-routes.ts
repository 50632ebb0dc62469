import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { conflict, notFound } from '../http/errors.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';
import type { EventOutcome } from '../store/events/event-log.js';
import { decodeCursor, decodeTailCursor, DEFAULT_LIST_LIMIT, encodeCursor, encodeTailCursor, listPageSchema, listQueryProperties } from '../http/paging.js';

const SECURITY = [{ adminKey: [] }];
const OUTCOMES = ['pending', 'processed', 'unprocessed', 'refused'] as const;
const Outcome = Type.Union([Type.Literal('pending'), Type.Literal('processed'), Type.Literal('unprocessed'), Type.Literal('refused')]);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const EventItem = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  action: Nullable(Type.String()),
  fileId: Nullable(Type.String()),
  userId: Nullable(Type.String()),
  senderId: Nullable(
    Type.String({ description: 'who really sent it: the user of its token, or the user its signature was made for; null when the platform signed it for no user, or unsigned' }),
  ),
  receivedAt: TimeSchema,
  body: Type.Unknown({ description: 'the event as received, with credentials censored' }),
  outcome: Outcome,
  problem: Nullable(Type.String({ description: 'why it is refused or unprocessed, or what was left out of its effects' })),
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
      receiver: Type.String({ description: 'a NOTIFY_WEBHOOK_URLS address (redacted), or `channel:<id>` (docs/notifications.md)' }),
      recipient: Nullable(Type.String({ description: 'the user a personal notice is for; null: the receiver as a whole' })),
      status: NotificationStatus,
      attempts: Type.Integer(),
      lastError: Nullable(Type.String()),
      deliveredAt: Nullable(TimeSchema),
    }),
    { description: 'one per receiver in NOTIFY_WEBHOOK_URLS when the notification was made, and one per channel (and person) it was routed to' },
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
const Counts = (names: readonly string[]) => Type.Record(Type.String(), Type.Object(Object.fromEntries(names.map((name) => [name, Type.Integer()]))));
const StatsBody = Type.Object({
  intake: Counts(['accepted', 'refused', 'duplicate', 'unauthenticated', 'malformed']),
  processing: Counts(['processed', 'unprocessed']),
  log: Type.Object({ pending: Type.Integer(), unprocessed: Type.Integer(), refused: Type.Integer() }),
  waiting: Type.Object({ count: Type.Integer(), oldestAgeMs: Type.Integer() }),
  lag: Type.Object({ p50Ms: Nullable(Type.Integer()), p99Ms: Nullable(Type.Integer()), sample: Type.Integer() }),
  outbox: Type.Object({ pending: Type.Integer(), oldestPendingAgeMs: Type.Integer(), failedByReceiver: Type.Record(Type.String(), Type.Integer()) }),
  reminders: Type.Object({ due: Type.Integer(), late: Type.Integer() }),
});
const Reprocessed = Type.Object({ id: Type.Integer(), outcome: Outcome, problem: Nullable(Type.String()) });

/**
 * The event pipeline's management routes, under the `/api` plugin and its admin-key guard: the event log
 * (by outcome) and re-processing, statistics, notifications (+ re-send), reminders and presence.
 */
export const eventManageRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { events } = context.management;
  const refusals = errorResponses(400, 401, 404);

  app.get(
    '/events',
    {
      schema: {
        summary: 'The event log, oldest first (order=newest: newest first); without outcome the accepted events (pending, processed, unprocessed)',
        tags: ['management'],
        security: SECURITY,
        querystring: Type.Object({
          fileId: Type.Optional(Type.String({ maxLength: 255 })),
          kind: Type.Optional(Type.String({ maxLength: 64, description: "the header's kind: Comment, FileContent, …" })),
          since: Type.Optional(TimeSchema),
          outcome: Type.Optional(
            Type.String({
              pattern: `^(${OUTCOMES.join('|')})(,(${OUTCOMES.join('|')}))*$`,
              description: 'one or more of pending, processed, unprocessed, refused, comma-separated',
            }),
          ),
          order: Type.Optional(Type.Union([Type.Literal('oldest'), Type.Literal('newest')], { description: 'oldest (default) or newest first' })),
          ...listQueryProperties,
        }),
        response: { 200: listPageSchema(EventItem), ...refusals },
      },
    },
    async (request) => {
      const { fileId, kind, since, outcome, order, limit, cursor } = request.query;
      const outcomes = outcome === undefined ? undefined : ([...new Set(outcome.split(','))] as EventOutcome[]);
      const page = await events.listEvents({
        fileId,
        kind,
        since,
        outcomes,
        after: decodeCursor(cursor, 'number') ?? 0,
        limit: limit ?? DEFAULT_LIST_LIMIT,
        newestFirst: order === 'newest',
      });
      return { items: page.items, nextCursor: encodeCursor(page.next) };
    },
  );

  app.get(
    '/events/stats',
    {
      schema: {
        summary: 'The event pipeline: intake and processing counts, events waiting, effect lag, outbox and reminders',
        tags: ['management'],
        security: SECURITY,
        response: { 200: StatsBody, ...errorResponses(401) },
      },
    },
    async () => context.events.stats(),
  );

  app.post(
    '/events/:eventId/reprocess',
    {
      schema: {
        summary: 'Derive an event’s effects again under today’s rules (a refused event is then accepted); nothing is applied twice',
        tags: ['management'],
        security: SECURITY,
        params: Type.Object({ eventId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
        response: { 200: Reprocessed, ...refusals },
      },
    },
    async (request) => {
      const { eventId } = request.params;
      const done = await context.events.reprocess(eventId);
      if (!done) throw notFound(`no event ${eventId}`, 'event_not_found');
      return done;
    },
  );

  app.get(
    '/notifications',
    {
      schema: {
        summary: 'Outgoing notifications, oldest first',
        tags: ['management'],
        security: SECURITY,
        querystring: Type.Object({ status: Type.Optional(NotificationStatus), ...listQueryProperties }),
        response: { 200: listPageSchema(NotificationItem), ...refusals },
      },
    },
    async (request) => {
      const { status, limit, cursor } = request.query;
      const page = await events.listNotifications({ status, after: decodeTailCursor(cursor), limit: limit ?? DEFAULT_LIST_LIMIT });
      return { items: page.items, nextCursor: encodeTailCursor(page.next) };
    },
  );

  app.post(
    '/notifications/:notificationId/resend',
    {
      schema: {
        summary: 'Send a failed notification again to the receivers that failed',
        tags: ['management'],
        security: SECURITY,
        params: Type.Object({ notificationId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Type.Object({ id: Type.String(), status: Type.Literal('pending') }), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const { notificationId } = request.params;
      const outcome = await events.resendNotification(notificationId, Date.now());
      if (outcome === 'not_found') throw notFound(`no notification ${notificationId}`, 'notification_not_found');
      if (outcome === 'not_failed') throw conflict('only a failed notification can be re-sent', 'notification_not_failed');
      return { id: notificationId, status: 'pending' as const };
    },
  );

  app.get(
    '/reminders',
    {
      schema: {
        summary: 'Date reminders in the order they were created',
        tags: ['management'],
        security: SECURITY,
        querystring: Type.Object({ fileId: Type.Optional(Type.String({ maxLength: 255 })), ...listQueryProperties }),
        response: { 200: listPageSchema(ReminderItem), ...refusals },
      },
    },
    async (request) => {
      const { fileId, limit, cursor } = request.query;
      const page = await events.listReminders({ fileId, after: decodeTailCursor(cursor), limit: limit ?? DEFAULT_LIST_LIMIT });
      return { items: page.items, nextCursor: encodeTailCursor(page.next) };
    },
  );

  app.get(
    '/files/:fileId/presence',
    {
      schema: {
        summary: 'Who has the file open now, with their clients',
        tags: ['management'],
        security: SECURITY,
        params: Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: { 200: PresenceBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => events.filePresence(request.params.fileId),
  );
};
