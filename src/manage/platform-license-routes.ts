import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { badRequest } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { decodeCursor, DEFAULT_LIST_LIMIT, encodeCursor, listPageSchema, listQueryProperties } from '../http/paging.js';
import { notConfigured } from '../platform/create-document.js';
import type { PlatformClient } from '../platform/platform-client.js';
import { AppDetails, Seat, SEAT_STATUSES, type SeatStatus } from '../platform/platform-shapes.js';
import { reconcileSeats } from '../platform/seat-reconcile.js';
import { PLATFORM_ROUTE_ERRORS, viaPlatform } from './platform-http-errors.js';

const SECURITY = [{ adminKey: [] }];
const errors = errorResponses(...PLATFORM_ROUTE_ERRORS);
const UserIds = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { minItems: 1, maxItems: 1000 });
const SeatTaskItem = Type.Object({
  id: Type.Integer(),
  userId: Type.String(),
  action: Type.String({ description: 'activate | deactivate' }),
  status: Type.String({ description: 'pending | done | superseded' }),
  attempts: Type.Integer(),
  nextAttemptAt: Type.Union([Type.String(), Type.Null()], { description: 'pending: when it is tried next' }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: "the last failure, with the platform's status and body" }),
  source: Type.String(),
  createdAt: Type.String(),
  doneAt: Type.Union([Type.String(), Type.Null()]),
});
const SeatPlanSchema = Type.Object({
  dryRun: Type.Boolean(),
  seatsListed: Type.Integer(),
  activate: Type.Array(Type.String()),
  deactivate: Type.Array(Type.String()),
});

/** The platform's license family (scope license): app details, the callback URL, seats; and collab-host's seat task queue. */
export const platformLicenseRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { seats } = context.platform;
  const platform = (): PlatformClient => {
    const client = context.platform.documents.platform;
    if (!client) throw notConfigured();
    return client;
  };

  app.get(
    '/platform/app',
    { schema: { summary: "The platform's view of this application (licence, seats, callback address)", security: SECURITY, response: { 200: AppDetails, ...errors } } },
    () => viaPlatform(() => platform().appDetails()),
  );

  app.put(
    '/platform/app/endpoint-url',
    {
      schema: {
        summary: 'Change the callback address the platform calls (must start with http:// or https://)',
        security: SECURITY,
        body: Type.Object({ url: Type.String({ pattern: '^https?://', maxLength: 2000 }) }, { additionalProperties: false }),
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      await viaPlatform(() => platform().updateCallbackUrl({ url: request.body.url }));
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/platform/seats',
    {
      schema: {
        summary: "One page of the platform's seats: status 1 activated, 0 disabled, -1 never enabled",
        security: SECURITY,
        querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })), size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) }),
        response: { 200: Type.Object({ page: Type.Integer(), size: Type.Integer(), seats: Type.Array(Seat) }), ...errors },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const size = request.query.size ?? 100;
      return { page, size, seats: await viaPlatform(() => platform().listSeats({ page, size })) };
    },
  );

  for (const action of ['activate', 'deactivate'] as const) {
    app.post(
      `/platform/seats/${action}`,
      {
        schema: {
          summary: `${action === 'activate' ? 'Activate' : 'Deactivate'} these users' seats now`,
          security: SECURITY,
          body: Type.Object({ userIds: UserIds }, { additionalProperties: false }),
          response: { 204: Type.Null(), ...errors },
        },
      },
      async (request, reply) => {
        await viaPlatform(() => (action === 'activate' ? platform().activateSeats(request.body.userIds) : platform().deactivateSeats(request.body.userIds)));
        return reply.status(204).send(null);
      },
    );
  }

  app.post(
    '/platform/seats/status',
    {
      schema: {
        summary: "Set these users' seat status: 1 activated, 0 disabled, -1 not enabled",
        security: SECURITY,
        body: Type.Object({ userIds: UserIds, status: Type.Integer({ minimum: -1, maximum: 1 }) }, { additionalProperties: false }),
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      const { userIds, status } = request.body;
      if (!(SEAT_STATUSES as readonly number[]).includes(status)) throw badRequest('status must be 1, 0 or -1', 'invalid_seat_status');
      await viaPlatform(() => platform().setSeatStatus(userIds, status as SeatStatus));
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/platform/seats/reconcile',
    {
      schema: {
        summary: "Bring the platform's seats in line with the directory's active users (one shot); dryRun only says what would change",
        security: SECURITY,
        querystring: Type.Object({ dryRun: Type.Optional(Type.Boolean({ default: false })) }),
        response: { 200: SeatPlanSchema, ...errors },
      },
    },
    async (request) => {
      const dryRun = request.query.dryRun ?? false;
      const plan = await viaPlatform(async () => reconcileSeats(platform(), await seats.userStates(), { dryRun }));
      return { dryRun, seatsListed: plan.seatsListed, activate: plan.activate, deactivate: plan.deactivate };
    },
  );

  app.get(
    '/platform/seat-tasks',
    {
      schema: {
        summary: 'Seat (de)activations queued by directory changes, newest first, with their attempts and last error',
        security: SECURITY,
        querystring: Type.Object({
          status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('done'), Type.Literal('superseded')])),
          ...listQueryProperties,
        }),
        response: { 200: listPageSchema(SeatTaskItem), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? DEFAULT_LIST_LIMIT;
      const beforeId = decodeCursor(request.query.cursor, 'number');
      const rows = await seats.list({
        limit: limit + 1,
        ...(request.query.status ? { status: request.query.status } : {}),
        ...(beforeId === undefined ? {} : { beforeId }),
      });
      const items = rows.slice(0, limit).map((row) => ({
        id: Number(row.id),
        userId: row.user_id,
        action: row.action,
        status: row.status,
        attempts: Number(row.attempts),
        nextAttemptAt: row.status === 'pending' ? new Date(Number(row.next_attempt_ms)).toISOString().replace(/\.\d{3}Z$/, 'Z') : null,
        lastError: row.last_error,
        source: row.source,
        createdAt: row.created_at,
        doneAt: row.done_at,
      }));
      return { items, nextCursor: rows.length > limit ? encodeCursor(items.at(-1)!.id) : null };
    },
  );
};
