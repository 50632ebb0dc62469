import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { badRequest, conflict, HttpError, notFound } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';

const SECURITY = [{ adminKey: [] }];
const Params = Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 255 }) });
/** `type/subtype` with optional parameters (RFC 9110 media type); stored and served as given. */
const MEDIA_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]{0,126}\/[A-Za-z0-9][\w!#$&^.+-]{0,126}(\s*;\s*[\w!#$&^.+-]+=("[^"\r\n]*"|[\w!#$&^.+-]+))*$/;

const StoredContentSchema = Type.Object({
  fileId: Type.String(),
  size: Type.Integer({ minimum: 0, description: 'bytes' }),
  contentType: Type.String(),
  sha256: Type.String({ description: 'hex SHA-256 of the bytes' }),
  updatedAt: Type.String({ description: "the file's new updatedAt" }),
});

const REFUSALS = {
  no_file: (fileId: string) => notFound(`no file ${fileId}`, 'file_not_found'),
  not_a_file: (fileId: string) => conflict(`file ${fileId} is not of type "file": only third-party files have stored bytes`, 'not_a_third_party_file'),
  no_content: (fileId: string) => notFound(`file ${fileId} has no stored content`, 'content_not_found'),
};

/**
 * `PUT /api/files/{fileId}/content`: the body (any media type, streamed, up to FILE_MAX_SIZE) becomes the
 * stored bytes of a third-party file, in whichever back end FILE_STORAGE names; 201 when the file had none,
 * 200 when they were replaced. `DELETE` removes them (204). Both set the file's `updatedAt`.
 */
export const contentManageRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const storage = context.fileStorage;

  // The body is the file, whatever its type (a .json file is not JSON to parse): hand the stream over as is.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.put(
    '/files/:fileId/content',
    {
      schema: {
        summary: `Upload or replace the bytes of a third-party file (type "file"), at most ${storage.maxUploadBytes} bytes`,
        description:
          'The request body is the file. Content-Type is stored and served with it; without one (or with application/octet-stream) ' +
          "the type follows the file's extension. Size, type and SHA-256 are recorded and the file's updatedAt is set.",
        security: SECURITY,
        params: Params,
        headers: Type.Object({ 'content-type': Type.Optional(Type.String({ maxLength: 255 })) }),
        response: { 200: StoredContentSchema, 201: StoredContentSchema, ...errorResponses(400, 401, 404, 409, 413) },
      },
    },
    async (request, reply) => {
      const { fileId } = request.params;
      const contentType = request.headers['content-type']?.trim();
      if (contentType !== undefined && !MEDIA_TYPE.test(contentType))
        throw badRequest(`Content-Type "${contentType}" is not a media type such as application/pdf`, 'invalid_content_type');
      const lengthHeader = request.headers['content-length'];
      const declaredSize = lengthHeader === undefined ? undefined : Number(lengthHeader);
      const body = request.body instanceof Readable ? request.body : Readable.from([]);

      const outcome = await storage.put(fileId, body, { ...(contentType === undefined ? {} : { contentType }), ...(declaredSize === undefined ? {} : { declaredSize }) });
      if (!outcome.ok) {
        if (outcome.reason === 'too_large')
          throw new HttpError(413, 'payload_too_large', `the content is larger than FILE_MAX_SIZE (${storage.maxUploadBytes} bytes); nothing was stored`);
        throw REFUSALS[outcome.reason](fileId);
      }
      const { object } = outcome;
      return reply.code(outcome.created ? 201 : 200).send({ fileId, size: object.size, contentType: object.contentType, sha256: object.sha256, updatedAt: outcome.updatedAt });
    },
  );

  app.delete(
    '/files/:fileId/content',
    {
      schema: {
        summary: "Remove the stored bytes of a third-party file (its downloadUrl becomes empty); sets the file's updatedAt",
        security: SECURITY,
        params: Params,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      const outcome = await storage.remove(request.params.fileId);
      if (!outcome.ok) throw REFUSALS[outcome.reason](request.params.fileId);
      return reply.code(204).send(null);
    },
  );
};
