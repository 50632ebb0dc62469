import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { bindPathFileId, bindPathFileIdAndQueryUserId, platformSignatureGuard } from '../http/signature-guard.js';
import { permissionsFor } from '../directory/permissions.js';
import { errorResponses, FileSummarySchema, UserSchema } from '../http/schemas.js';
import { forbidden, notFound } from '../http/errors.js';
import { directoryServiceFor, recordAccess } from './callback-kit.js';
import { MAX_USER_BATCH } from './users.js';
import { fileFullUrl, toFileSummary, toUserBody } from './wire-shapes.js';

const FileParams = Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 256 }) });
const SIGNED = [{ platformSignature: [] }];

/**
 * The platform-signed callbacks (credential type 3): requests the platform makes with no user token,
 * authenticated by `X-{brand}-Signature` (src/http/signature-guard.ts; 401 missing or invalid, 403 valid
 * but made for another file or user). A user token never opens them.
 *
 * - `GET /admin/files/{fileId}`: the file as an automatic task (a cross-table reference) sees it: read
 *   access with the file's own restrictions, i.e. the permissions of a viewer, `readable` always true.
 * - `GET /admin/files/{fileId}/by-user-id?userId=`: the file with that user's real permissions. When that
 *   user may not read the file the answer is 403 `file_not_readable`: the interface requires `readable`
 *   true in any usable answer, so no answer with `readable: false` is given.
 * - `POST /files/{fileId}/url`: `{ url }`, the file's `fullUrl`, else FILE_URL_TEMPLATE.
 * - `POST /admin/users/batch/get`: as `POST /users/batch/get`.
 *
 * Files whose platform creation is pending or failed are unknown here (404), as everywhere.
 */
export const adminCallbacks: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const service = directoryServiceFor(context);
  if (!app.hasRequestDecorator('platformSignature')) app.decorateRequest('platformSignature', undefined);
  const signedByFile = platformSignatureGuard(context, bindPathFileId);
  const signedByFileAndUser = platformSignatureGuard(context, bindPathFileIdAndQueryUserId);
  const signed = platformSignatureGuard(context);

  const activeFile = async (fileId: string) => {
    const file = await context.directory.getFile(fileId);
    if (!file || file.status !== 'active') throw notFound(`no file ${fileId}`, 'file_not_found');
    return file;
  };

  app.get(
    '/admin/files/:fileId',
    {
      onRequest: signedByFile,
      schema: {
        summary: 'A file as an automatic task sees it (signed; the signature carries the fileId)',
        security: SIGNED,
        params: FileParams,
        response: { 200: FileSummarySchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const file = await activeFile(request.params.fileId);
      const permissions = permissionsFor('viewer', file.restrictions);
      recordAccess(context, request, { actorId: null, credential: 'platform_signature', fileId: file.id, permissions });
      return toFileSummary({ file, permissions });
    },
  );

  app.get(
    '/admin/files/:fileId/by-user-id',
    {
      onRequest: signedByFileAndUser,
      schema: {
        summary: "A file with a given user's permissions (signed; the signature carries fileId and userId); 403 when that user may not read it",
        security: SIGNED,
        params: FileParams,
        querystring: Type.Object({ userId: Type.String({ minLength: 1, maxLength: 256 }) }),
        response: { 200: FileSummarySchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { fileId } = request.params;
      const { userId } = request.query;
      const [view, user] = await Promise.all([service.fileAsSeenBy(fileId, userId), context.directory.getUser(userId)]);
      if (!view) throw notFound(`no file ${fileId}`, 'file_not_found');
      if (!user) throw notFound(`no user ${userId}`, 'user_not_found');
      recordAccess(context, request, { actorId: userId, credential: 'platform_signature', fileId, permissions: view.permissions });
      if (!view.permissions.readable) throw forbidden(`user ${userId} may not read file ${fileId}`, 'file_not_readable');
      return toFileSummary(view);
    },
  );

  app.post(
    '/files/:fileId/url',
    {
      onRequest: signedByFile,
      schema: {
        summary: "The full address of a file in the integrator's system (signed; the signature carries the fileId)",
        security: SIGNED,
        params: FileParams,
        response: { 200: Type.Object({ url: Type.String() }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => ({ url: fileFullUrl(await activeFile(request.params.fileId), context.config.fileUrlTemplate) }),
  );

  app.post(
    '/admin/users/batch/get',
    {
      onRequest: signed,
      schema: {
        summary: `Several users for automatic tasks (signed), in the order asked; unknown ids left out (at most ${MAX_USER_BATCH})`,
        security: SIGNED,
        body: Type.Object({ ids: Type.Array(Type.String({ maxLength: 256 }), { maxItems: MAX_USER_BATCH }) }),
        response: { 200: Type.Array(UserSchema), ...errorResponses(400, 401, 413, 415) },
      },
    },
    async (request) => (await service.usersInOrder(request.body.ids)).map(toUserBody),
  );
};
