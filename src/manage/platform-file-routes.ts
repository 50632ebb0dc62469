import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { FileDocumentSchema, toFileDocument } from '../callbacks/wire-shapes.js';
import { DirectoryService } from '../directory/directory-service.js';
import type { Permissions } from '../directory/types.js';
import { forbidden, notFound } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { copyDocument, notConfigured } from '../platform/create-document.js';
import { exportStatus, importStatus, startExport, startImport } from '../platform/document-tasks.js';
import { CommentCount, HistoryPage, MentionList } from '../platform/platform-shapes.js';
import { EXPORT_FORMATS, IMPORT_EXTENSIONS } from '../platform/platform-requests.js';
import { PLATFORM_ROUTE_ERRORS, viaPlatform } from './platform-http-errors.js';

const SECURITY = [{ adminKey: [] }];
const errors = errorResponses(...PLATFORM_ROUTE_ERRORS);
const Id = Type.String({ minLength: 1, maxLength: 255 });
const FileParams = Type.Object({ fileId: Id });
const TaskParams = Type.Object({ taskId: Type.String({ minLength: 1, maxLength: 200 }) });
const AsUser = Type.Object({ userId: Type.Optional({ ...Id, description: "whose token the call carries; default the file's creator" }) });

export const TaskViewSchema = Type.Object({
  taskId: Type.String(),
  fileId: Type.String({ description: 'import: the new document; export: the exported document' }),
  status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  exportFileId: Type.Optional(Type.String({ description: 'export: the third-party file holding the exported bytes' })),
  format: Type.Optional(Type.String()),
  message: Type.Optional(Type.String({ description: "why it failed, with the platform's status and body" })),
});

/**
 * The platform's file calls an integrator's backend uses, on behalf of a user who may do them here:
 * delete (manageable), copy (copyable), import (a new document), export (exportable; the bytes are kept
 * as a third-party file), history, comment count and mention list (readable).
 */
export const platformFileRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const deps = context.platform.documents;
  const service = new DirectoryService(context.directory, { watermarkTemplate: context.config.watermarkTemplate });

  /** The acting user (given, or the creator), who must exist, be active and hold `permission` on the file. */
  const actingUser = async (fileId: string, userId: string | undefined, permission: keyof Permissions): Promise<string> => {
    if (!deps.platform) throw notConfigured();
    const file = await context.directory.getFile(fileId);
    if (!file || file.status !== 'active') throw notFound(`no file ${fileId}`, 'file_not_found');
    const actor = userId ?? file.creatorId;
    const user = await context.directory.getUser(actor);
    if (!user) throw notFound(`no user ${actor}`, 'user_not_found');
    if (user.active === false) throw forbidden(`user ${actor} is deactivated`, 'user_inactive');
    const view = await service.fileAsSeenBy(fileId, actor);
    if (!view?.permissions[permission]) throw forbidden(`user ${actor} is not ${permission} on file ${fileId}`, 'not_allowed');
    return actor;
  };

  app.delete(
    '/platform/files/:fileId',
    {
      schema: {
        summary: 'Delete a document on the platform, then its record here (the user must be manageable)',
        security: SECURITY,
        params: FileParams,
        querystring: AsUser,
        response: { 204: Type.Null(), ...errors },
      },
    },
    async (request, reply) => {
      const { fileId } = request.params;
      const actor = await viaPlatform(async () => actingUser(fileId, request.query.userId, 'manageable'));
      await viaPlatform(() => deps.platform!.deleteFile({ fileId }, deps.userFor(actor)));
      await deps.records.removeDocument(fileId);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/platform/files/:fileId/copy',
    {
      schema: {
        summary: 'Copy a document on the platform into a new one the user owns; 201 with the copy as that user sees it',
        security: SECURITY,
        params: FileParams,
        body: Type.Object(
          { userId: Id, fileId: Type.Optional(Type.String({ description: "the copy's id; default a UUID" })), name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) },
          { additionalProperties: false },
        ),
        response: { 201: FileDocumentSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { userId, fileId, name } = request.body;
      await viaPlatform(() => actingUser(request.params.fileId, userId, 'copyable'));
      const copy = await viaPlatform(() =>
        copyDocument(deps, { sourceFileId: request.params.fileId, creatorId: userId, ...(name ? { name } : {}), ...(fileId ? { fileId } : {}) }),
      );
      const view = await service.fileAsSeenBy(copy.id, userId);
      if (!view) throw new Error(`document ${copy.id} vanished right after its copy`);
      return reply.status(201).send(toFileDocument(view));
    },
  );

  app.post(
    '/platform/imports',
    {
      schema: {
        summary: 'Import a file (by URL) into a new document the user owns; 202 with the task (poll GET /api/platform/imports/{taskId})',
        security: SECURITY,
        body: Type.Object(
          {
            userId: Id,
            type: Type.String({ description: `one of ${Object.keys(IMPORT_EXTENSIONS).join(', ')} (collab-host records all but presentation)` }),
            fileUrl: Type.String({ minLength: 1, maxLength: 4000, description: 'where the platform downloads the file' }),
            fileName: Type.String({ minLength: 1, maxLength: 500, description: 'its extension must suit the type' }),
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
            fileId: Type.Optional(Type.String()),
            version: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)], { description: 'the platform import API, default 1' })),
          },
          { additionalProperties: false },
        ),
        response: { 202: TaskViewSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { userId, type, fileUrl, fileName, name, fileId, version } = request.body;
      const task = await viaPlatform(() =>
        startImport(deps, { creatorId: userId, type, fileUrl, fileName, ...(name ? { name } : {}), ...(fileId ? { fileId } : {}), ...(version ? { version } : {}) }),
      );
      return reply.status(202).send(task);
    },
  );

  app.get(
    '/platform/imports/:taskId',
    { schema: { summary: "An import's progress; at 100 the document is active", security: SECURITY, params: TaskParams, response: { 200: TaskViewSchema, ...errors } } },
    async (request) => (await viaPlatform(() => importStatus(deps, request.params.taskId))) ?? notFoundTask(request.params.taskId),
  );

  app.post(
    '/platform/files/:fileId/exports',
    {
      schema: {
        summary: 'Export a document (the user must be exportable); 202 with the task (poll GET /api/platform/exports/{taskId})',
        security: SECURITY,
        params: FileParams,
        body: Type.Object(
          {
            format: Type.String({
              description: Object.entries(EXPORT_FORMATS)
                .map(([type, formats]) => `${type}: ${formats.join(', ')}`)
                .join('; '),
            }),
            userId: Type.Optional(Id),
          },
          { additionalProperties: false },
        ),
        response: { 202: TaskViewSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { fileId } = request.params;
      const actor = await viaPlatform(() => actingUser(fileId, request.body.userId, 'exportable'));
      return reply.status(202).send(await viaPlatform(() => startExport(deps, { fileId, userId: actor, format: request.body.format })));
    },
  );

  app.get(
    '/platform/exports/:taskId',
    {
      schema: {
        summary: "An export's progress; when done, the exported bytes are kept as the third-party file exportFileId (GET /api/files/{exportFileId})",
        security: SECURITY,
        params: TaskParams,
        response: { 200: TaskViewSchema, ...errors },
      },
    },
    async (request) => (await viaPlatform(() => exportStatus(deps, request.params.taskId))) ?? notFoundTask(request.params.taskId),
  );

  const HistoryQuery = Type.Object({
    userId: AsUser.properties.userId,
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    count: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'offset' })),
    historyType: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)], { default: 2, description: '1 operation history, 2 edit history' })),
  });
  app.get(
    '/platform/files/:fileId/history',
    {
      schema: {
        summary: "The document's history from the platform (the user must be readable)",
        security: SECURITY,
        params: FileParams,
        querystring: HistoryQuery,
        response: { 200: HistoryPage, ...errors },
      },
    },
    async (request) => {
      const { fileId } = request.params;
      const { userId, pageSize, count, historyType } = request.query;
      const actor = await viaPlatform(() => actingUser(fileId, userId, 'readable'));
      return viaPlatform(() =>
        deps.platform!.history(
          { fileId, ...(pageSize ? { pageSize } : {}), ...(count !== undefined ? { count } : {}), ...(historyType ? { historyType } : {}) },
          deps.userFor(actor),
        ),
      );
    },
  );

  app.get(
    '/platform/files/:fileId/comment-count',
    {
      schema: {
        summary: 'How many comments the document has (the user must be readable)',
        security: SECURITY,
        params: FileParams,
        querystring: AsUser,
        response: { 200: CommentCount, ...errors },
      },
    },
    async (request) => {
      const actor = await viaPlatform(() => actingUser(request.params.fileId, request.query.userId, 'readable'));
      return viaPlatform(() => deps.platform!.commentCount({ fileId: request.params.fileId }, deps.userFor(actor)));
    },
  );

  app.get(
    '/platform/files/:fileId/mentions',
    {
      schema: {
        summary: 'The @ mentions in the document (the user must be readable)',
        security: SECURITY,
        params: FileParams,
        querystring: AsUser,
        response: { 200: MentionList, ...errors },
      },
    },
    async (request) => {
      const actor = await viaPlatform(() => actingUser(request.params.fileId, request.query.userId, 'readable'));
      return viaPlatform(() => deps.platform!.mentions({ fileId: request.params.fileId }, deps.userFor(actor)));
    },
  );
};

function notFoundTask(taskId: string): never {
  throw notFound(`no task ${taskId} was started through collab-host`, 'task_not_found');
}
