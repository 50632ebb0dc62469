import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { forbidden, notFound } from '../http/errors.js';
import { DEFAULT_FILE_LIMIT, MAX_FILE_LIMIT } from '../http/paging.js';
import { errorResponses, FileSummarySchema } from '../http/schemas.js';
import { directoryServiceFor, recordAccess, requireUserToken } from './callback-kit.js';
import { CollaboratorSchema, FileDocumentSchema, FilePreviewSchema, toFileDocument, toFilePreview, toFileSummary, toUserBody } from './wire-shapes.js';

const FileParams = Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 256 }) });

/**
 * Interface 4.1, user context: `GET /files`, `GET /files/{fileId}` (document or preview shape) and
 * `GET /files/{fileId}/collaborators`. Pending and failed documents answer 404 like unknown ones.
 */
export const fileRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  requireUserToken(app, context);
  const service = directoryServiceFor(context);

  app.get(
    '/files',
    {
      config: { guests: true },
      schema: {
        summary: "The current user's recent files (only those they may read; a guest: their link's file)",
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, default: DEFAULT_FILE_LIMIT, description: `at most ${MAX_FILE_LIMIT}; larger values are served as ${MAX_FILE_LIMIT}` }),
          orderBy: Type.Union([Type.Literal('created_at'), Type.Literal('updated_at')], { default: 'updated_at' }),
        }),
        response: { 200: Type.Array(FileSummarySchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const { limit, orderBy } = request.query;
      if (request.guest) {
        const view = await service.fileAsSeenByGuest(request.guest, request.guest.fileId);
        return view ? [toFileSummary(view)] : [];
      }
      const files = await service.readableFiles(request.viewer.id, { limit: Math.min(limit, MAX_FILE_LIMIT), orderBy });
      return files.map((access) => toFileSummary(access));
    },
  );

  app.get(
    '/files/:fileId',
    {
      config: { guests: true },
      schema: {
        summary: 'A file as the current user sees it: File (2.2) for documents, preview metadata (2.3) for type file',
        params: FileParams,
        response: { 200: Type.Union([FilePreviewSchema, FileDocumentSchema]), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { guest } = request;
      const fileId = request.params.fileId;
      const anonymousMay = guest?.anonymous === true && (await context.sharing.guests.anonymousMayRead(fileId));
      const view = guest ? await service.fileAsSeenByGuest(anonymousMay ? { fileId, role: 'view' } : guest, fileId) : await service.fileAsSeenBy(fileId, request.viewer.id);
      if (!view) throw notFound(`no file ${request.params.fileId}`, 'file_not_found');
      recordAccess(context, request, { actorId: request.viewer.id, credential: 'user_token', fileId: view.file.id, permissions: view.permissions });
      if (view.file.type !== 'file') return toFileDocument(view);
      // Only a readable file without an external address links to its stored bytes (presigning is async).
      const { file } = view;
      const stored = view.permissions.readable && file.downloadUrl === null && file.hasStoredContent ? await context.storedContent.downloadUrl(file) : '';
      return toFilePreview(view, () => stored);
    },
  );

  app.get(
    '/files/:fileId/collaborators',
    {
      schema: {
        summary: 'The creator and the users granted the file directly; isManager is their manageable',
        params: FileParams,
        response: { 200: Type.Array(CollaboratorSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const view = await service.fileAsSeenBy(request.params.fileId, request.viewer.id);
      if (!view) throw notFound(`no file ${request.params.fileId}`, 'file_not_found');
      recordAccess(context, request, { actorId: request.viewer.id, credential: 'user_token', fileId: view.file.id, permissions: view.permissions });
      if (!view.permissions.readable) throw forbidden('you may not read this file', 'file_not_readable');
      const list = await service.collaborators(view.file);
      return list.map(({ user, isManager }) => ({ ...toUserBody(user), isManager }));
    },
  );
};
