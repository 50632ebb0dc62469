import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { createShareLink } from '../auth/share-link-admin.js';
import { linkState, type Guest, type ShareLink } from '../auth/share-links.js';
import { formatTime, isInterfaceTime } from '../directory/time.js';
import { badRequest, notFound } from '../http/errors.js';
import { errorResponses, TimeSchema } from '../http/schemas.js';

const SECURITY = [{ adminKey: [] }];
const Id = Type.String({ minLength: 1, maxLength: 256 });
const LinkRoleSchema = Type.Union([Type.Literal('view'), Type.Literal('comment'), Type.Literal('edit'), Type.Literal('form_fill')]);
const NullableTime = Type.Union([TimeSchema, Type.Null()]);
/** The most uses a link may allow. */
const MAX_USES = 1_000_000;

const LinkSchema = Type.Object({
  id: Type.String(),
  fileId: Type.String(),
  role: LinkRoleSchema,
  ownerId: Type.String({ description: 'the directory user the file is shared in the name of (watermark)' }),
  anonymous: Type.Boolean(),
  hasPassword: Type.Boolean(),
  maxUses: Type.Union([Type.Integer(), Type.Null()]),
  uses: Type.Integer({ description: 'guest tokens issued' }),
  state: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired'), Type.Literal('used_up')]),
  createdAt: TimeSchema,
  expiresAt: NullableTime,
  revokedAt: NullableTime,
});
const GuestSchema = Type.Object({ id: Type.String(), name: Type.String(), createdAt: TimeSchema, lastUsedAt: TimeSchema });
const LinkWithGuestsSchema = Type.Object({ ...LinkSchema.properties, guests: Type.Array(GuestSchema) });

function linkBody(link: ShareLink, nowText: string) {
  const state = linkState(link, nowText);
  const usedUp = state === 'active' && link.maxUses !== null && link.uses >= link.maxUses;
  return { ...link, state: usedUp ? ('used_up' as const) : state };
}

function guestBody(guest: Guest) {
  return { id: guest.id, name: guest.name, createdAt: guest.createdAt, lastUsedAt: guest.lastUsedAt };
}

/**
 * Share links of a file (docs/sharing.md): create (the code is answered once, never stored in clear),
 * list with their guests and last use, revoke. Writes are audited by the management API's hook.
 */
export const shareLinkManageRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { links } = context.sharing;

  app.post(
    '/files/:fileId/share-links',
    {
      schema: {
        summary: 'Create a share link on a file: guests get a token for that file only, within the role',
        security: SECURITY,
        params: Type.Object({ fileId: Id }),
        body: Type.Object(
          {
            role: LinkRoleSchema,
            expiresAt: Type.Optional(TimeSchema),
            password: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
            maxUses: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_USES })),
            anonymous: Type.Optional(Type.Boolean({ description: 'also let the platform’s anonymous viewer read the file (off by default)' })),
            ownerId: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "the directory user sharing; default the file's creator" })),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ ...LinkSchema.properties, code: Type.String({ description: 'shown once: the guest link carries it' }) }),
          ...errorResponses(400, 401, 404, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const { fileId } = request.params;
      const body = request.body;
      const file = await context.directory.getFile(fileId);
      if (!file || file.status !== 'active') throw notFound(`no file ${fileId}`, 'file_not_found');
      const now = Date.now();
      if (body.expiresAt !== undefined && (!isInterfaceTime(body.expiresAt) || body.expiresAt <= formatTime(now))) {
        throw badRequest('expiresAt must be a time in the future (YYYY-MM-DDThh:mm:ssZ)', 'invalid_expiry');
      }
      const ownerId = body.ownerId ?? file.creatorId;
      const owner = await context.directory.getUser(ownerId);
      if (!owner || owner.active === false) throw notFound(`no active user ${ownerId}`, 'user_not_found');
      const { link, code } = await createShareLink(links, { ...body, fileId, ownerId }, now);
      return reply.status(201).send({ ...linkBody(link, formatTime(now)), code });
    },
  );

  app.get(
    '/files/:fileId/share-links',
    {
      schema: {
        summary: "A file's share links, oldest first, each with its guests (newest first) and their last use",
        security: SECURITY,
        params: Type.Object({ fileId: Id }),
        response: { 200: Type.Object({ items: Type.Array(LinkWithGuestsSchema) }), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { fileId } = request.params;
      if (!(await context.directory.getFile(fileId))) throw notFound(`no file ${fileId}`, 'file_not_found');
      const list = await links.listForFile(fileId);
      const guests = await links.guestsOf(list.map((link) => link.id));
      const nowText = formatTime(Date.now());
      return { items: list.map((link) => ({ ...linkBody(link, nowText), guests: guests.filter((guest) => guest.linkId === link.id).map(guestBody) })) };
    },
  );

  app.delete(
    '/share-links/:linkId',
    {
      schema: {
        summary: "Revoke a share link: its guests' tokens are refused from the next request on, on every instance",
        security: SECURITY,
        params: Type.Object({ linkId: Id }),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      if (!(await links.revoke(request.params.linkId, formatTime(Date.now())))) throw notFound(`no share link ${request.params.linkId}`, 'link_not_found');
      return reply.status(204).send(null);
    },
  );
};
