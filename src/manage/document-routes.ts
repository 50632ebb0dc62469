import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { mintUserToken } from '../auth/user-token.js';
import { FileDocumentSchema, toFileDocument } from '../callbacks/wire-shapes.js';
import { directoryServiceFor } from '../callbacks/callback-kit.js';
import { forbidden, notFound } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { createDocument, DOCUMENT_TYPES, notConfigured } from '../platform/create-document.js';
import { editorConfig } from '../platform/editor-config.js';
import { platformHttpError, viaPlatform } from './platform-http-errors.js';

const SECURITY = [{ adminKey: [] }];

/**
 * `POST /api/documents` creates a collaborative document through the platform (the file record first,
 * `pending`, then the platform call; see src/platform/create-document.ts) and answers it as its creator
 * sees it. `GET /api/documents/{fileId}/editor-config?userId=` answers what the front end's `connect()`
 * needs for that user.
 */
export const documentManageRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = context;
  const deps = context.platform.documents;
  const service = directoryServiceFor(context);

  app.post(
    '/documents',
    {
      schema: {
        summary: 'Create a collaborative document on the platform; 201 with the file as its creator sees it',
        security: SECURITY,
        body: Type.Object(
          {
            userId: Type.String({ minLength: 1, maxLength: 255, description: 'the creator' }),
            type: Type.String({ description: `one of ${DOCUMENT_TYPES.join(', ')}` }),
            name: Type.String({ minLength: 1, maxLength: 500 }),
            fileId: Type.Optional(Type.String({ description: 'at most 64 letters, digits, ".", "_", "-"; default a UUID' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: FileDocumentSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 502, 503, 504) },
      },
    },
    async (request, reply) => {
      const { userId, type, name, fileId } = request.body;
      const { id } = await viaPlatform(() => createDocument(deps, { creatorId: userId, type, name, ...(fileId === undefined ? {} : { fileId }) }));
      const view = await service.fileAsSeenBy(id, userId);
      if (!view) throw new Error(`document ${id} vanished right after its creation`);
      return reply.status(201).send(toFileDocument(view));
    },
  );

  app.get(
    '/documents/:fileId/editor-config',
    {
      schema: {
        summary: "What the front-end SDK's connect() needs to open the document for a user who may read it",
        security: SECURITY,
        params: Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 255 }) }),
        querystring: Type.Object({ userId: Type.String({ minLength: 1, maxLength: 255 }) }),
        response: {
          200: Type.Object({
            endpoint: Type.String({ description: '{PLATFORM_API_URL}/sdk/v2' }),
            fileId: Type.String(),
            signature: Type.String({ description: 'bound to the file and user, scope editor, 1 hour' }),
            token: Type.String({ description: "the user's token" }),
            debug: Type.Boolean(),
          }),
          ...errorResponses(400, 401, 403, 404, 503),
        },
      },
    },
    async (request) => {
      const { fileId } = request.params;
      const { userId } = request.query;
      if (config.platformApiUrl === undefined) throw platformHttpError(notConfigured());
      const [view, user] = await Promise.all([service.fileAsSeenBy(fileId, userId), context.directory.getUser(userId)]);
      if (!view) throw notFound(`no file ${fileId}`, 'file_not_found');
      if (!user) throw notFound(`no user ${userId}`, 'user_not_found');
      if (!view.permissions.readable) throw forbidden(`user ${userId} may not read file ${fileId}`, 'file_not_readable');
      return editorConfig({
        apiUrl: config.platformApiUrl,
        credentials: { appId: config.appId, appSecret: config.appSecret },
        fileId,
        userId,
        token: mintUserToken(userId, config.tokenSecret, config.tokenTtlSeconds),
      });
    },
  );
};
