import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type, type Static } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { HttpError, notFound } from '../http/errors.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';
import { CHANNEL_KINDS, LOCALES, PERSONAL_KINDS, SUBSCRIBABLE_TYPES } from '../notify/channel.js';
import type { ChannelRefusal } from '../notify/channel-management.js';
import { decodeCursor, DEFAULT_LIST_LIMIT, encodeCursor, listPageSchema, listQueryProperties } from '../http/paging.js';

const SECURITY = [{ adminKey: [] }];
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const literals = <T extends string>(values: readonly T[]) => Type.Enum([...values]);

const ChannelId = Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'letters, digits, `.`, `_`, `-`; at most 64' });
const Summary = Type.Object({
  pending: Type.Integer(),
  delivered: Type.Integer(),
  failed: Type.Integer(),
  lastError: Nullable(Type.String()),
  lastErrorAt: Nullable(TimeSchema),
});
const ChannelBody = Type.Object({
  id: Type.String(),
  kind: literals(CHANNEL_KINDS),
  name: Type.String(),
  teamId: Nullable(Type.String()),
  target: Type.String({ description: 'the origin only (`https://oapi.dingtalk.com/…`): keys and passwords are never shown' }),
  secretSet: Type.Boolean(),
  subscriptions: Type.Array(Type.String()),
  personal: Type.Boolean(),
  locale: literals(LOCALES),
  from: Nullable(Type.String()),
  ratePerMinute: Nullable(Type.Integer()),
  enabled: Type.Boolean(),
  source: literals(['env', 'api']),
  createdAt: Nullable(TimeSchema),
  updatedAt: Nullable(TimeSchema),
  deliveries: Summary,
});
/** `If-Match`: the ETag a GET or PUT of the channel answered (or `*`); a write to another version is refused (412). */
const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 1000, description: 'the ETag a GET or PUT answered, or *' })) });
const ifMatchOf = (headers: Record<string, unknown>) => (typeof headers['if-match'] === 'string' ? headers['if-match'] : undefined);
const ChannelInputBody = Type.Object(
  {
    kind: literals(CHANNEL_KINDS),
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000]*$' }),
    teamId: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
    target: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'the webhook URL, or the SMTP URL; left out: the stored one is kept' })),
    secret: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 500, description: 'the signing secret; left out: kept; null: none' }))),
    subscriptions: Type.Optional(Type.Array(literals(SUBSCRIBABLE_TYPES), { maxItems: SUBSCRIBABLE_TYPES.length })),
    personal: Type.Optional(Type.Boolean()),
    locale: Type.Optional(literals(LOCALES)),
    from: Type.Optional(Nullable(Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\u0000-\\u001F]*$' }))),
    ratePerMinute: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 10_000 }))),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const DeliveryItem = Type.Object({
  notificationId: Type.String(),
  type: Type.String(),
  occurredAt: TimeSchema,
  recipient: Nullable(Type.String()),
  status: literals(['pending', 'delivered', 'failed']),
  attempts: Type.Integer(),
  lastError: Nullable(Type.String()),
  deliveredAt: Nullable(TimeSchema),
});
const Preferences = Type.Object(
  {
    muted: Type.Array(literals(PERSONAL_KINDS), { maxItems: PERSONAL_KINDS.length, description: 'personal notice kinds the person gets no message for' }),
    locale: Nullable(literals(LOCALES)),
  },
  { additionalProperties: false },
);
const UserParams = Type.Object({ userId: Type.String({ minLength: 1, maxLength: 255 }) });

const refusal = (refused: ChannelRefusal) => new HttpError(refused.status, refused.code, refused.message);

/** Notification channels per team (secrets write-only), their deliveries, and people's preferences. */
export const notificationRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { channels } = context.management;

  app.get(
    '/notification-channels',
    {
      schema: {
        summary: 'Notification channels: the environment’s, then those stored, each with its deliveries by status and last error',
        tags: ['notifications'],
        security: SECURITY,
        response: { 200: Type.Object({ items: Type.Array(ChannelBody) }), ...errorResponses(401) },
      },
    },
    async () => ({ items: await channels.list() }),
  );

  app.get(
    '/notification-channels/:channelId',
    {
      schema: {
        summary: 'One notification channel (its secrets are never shown)',
        tags: ['notifications'],
        security: SECURITY,
        params: Type.Object({ channelId: ChannelId }),
        response: { 200: ChannelBody, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const channel = await channels.get(request.params.channelId);
      if (!channel) throw notFound(`no channel ${request.params.channelId}`, 'channel_not_found');
      const tag = await channels.storedTag(request.params.channelId);
      if (tag !== undefined) void reply.header('etag', tag);
      return channel;
    },
  );

  app.put(
    '/notification-channels/:channelId',
    {
      schema: {
        summary: 'Create (201) or replace (200) a channel; `target` and `secret` left out keep the stored ones',
        tags: ['notifications'],
        security: SECURITY,
        params: Type.Object({ channelId: ChannelId }),
        headers: IfMatchHeaders,
        body: ChannelInputBody,
        response: { 200: ChannelBody, 201: ChannelBody, ...errorResponses(400, 401, 409, 412) },
      },
    },
    async (request, reply) => {
      const outcome = await channels.put(request.params.channelId, request.body, Date.now(), ifMatchOf(request.headers));
      if ('refused' in outcome) throw refusal(outcome.refused);
      return reply
        .code(outcome.created ? 201 : 200)
        .header('etag', outcome.tag)
        .send(outcome.channel);
    },
  );

  app.delete(
    '/notification-channels/:channelId',
    {
      schema: {
        summary: 'Remove a stored channel (its pending deliveries fail: the channel no longer exists)',
        tags: ['notifications'],
        security: SECURITY,
        params: Type.Object({ channelId: ChannelId }),
        headers: IfMatchHeaders,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404, 409, 412) },
      },
    },
    async (request, reply) => {
      const refused = await channels.remove(request.params.channelId, ifMatchOf(request.headers));
      if (refused) throw refusal(refused);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/notification-channels/:channelId/deliveries',
    {
      schema: {
        summary: 'A channel’s deliveries, newest first, with the person each is for and its last error',
        tags: ['notifications'],
        security: SECURITY,
        params: Type.Object({ channelId: ChannelId }),
        querystring: Type.Object({ status: Type.Optional(literals(['pending', 'delivered', 'failed'])), ...listQueryProperties }),
        response: { 200: listPageSchema(DeliveryItem), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { channelId } = request.params;
      if (!(await channels.get(channelId))) throw notFound(`no channel ${channelId}`, 'channel_not_found');
      const { status, limit, cursor } = request.query;
      const page = await channels.deliveries(channelId, { status, before: decodeCursor(cursor, 'number') ?? 0, limit: limit ?? DEFAULT_LIST_LIMIT });
      // Delivery rows are written pending, then delivered or failed: the three statuses the schema lists.
      return { items: page.items as Array<Static<typeof DeliveryItem>>, nextCursor: encodeCursor(page.next) };
    },
  );

  app.get(
    '/users/:userId/notification-preferences',
    {
      schema: {
        summary: 'The personal notice kinds a person muted, and their language for messages',
        tags: ['notifications'],
        security: SECURITY,
        params: UserParams,
        response: { 200: Preferences, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const preferences = await channels.preferencesOf(request.params.userId);
      if (!preferences) throw notFound(`no user ${request.params.userId}`, 'user_not_found');
      return preferences as Static<typeof Preferences>;
    },
  );

  app.put(
    '/users/:userId/notification-preferences',
    {
      schema: {
        summary: 'Mute personal notice kinds (mention, reply, reminder, share) and choose the language of messages',
        tags: ['notifications'],
        security: SECURITY,
        params: UserParams,
        body: Preferences,
        response: { 200: Preferences, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const stored = await channels.setPreferences(request.params.userId, request.body, Date.now());
      if (!stored) throw notFound(`no user ${request.params.userId}`, 'user_not_found');
      return stored as Static<typeof Preferences>;
    },
  );
};
