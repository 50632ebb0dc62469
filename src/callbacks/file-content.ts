import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { AppContext } from '../http/app-context.js';
import { DownloadLinks } from '../auth/download-link.js';
import { tokenSecrets } from '../auth/key-rotation.js';
import { forbidden, HttpError, notFound } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';
import { answerRange } from '../storage/byte-range.js';
import { contentDisposition, downloadName } from '../storage/download-name.js';
import { NO_PERMISSIONS } from '../directory/permissions.js';
import { recordAccess } from './callback-kit.js';

export { contentDisposition, downloadName };

const Bytes = (description: string) => Type.Unsafe<Readable>({ type: 'string', format: 'binary', description });

/**
 * `GET /content/{fileId}?expires=&sig=`: the stored bytes of a third-party file, for the platform's
 * preview download, from whichever back end holds them. No user token: the signed, expiring link from
 * `GET /files/{fileId}` is the credential, and it is checked before the file is looked up (a bad link
 * learns nothing). Single byte ranges are served (206, or 416 past the end); HEAD answers the headers.
 */
export const fileContentRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const links = new DownloadLinks(tokenSecrets(context.config), context.config.publicUrl);

  app.get(
    '/content/:fileId',
    {
      schema: {
        summary: 'Stored bytes of a third-party file, behind a signed expiring link (Range supported)',
        params: Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 256 }) }),
        querystring: Type.Object({
          expires: Type.Integer({ minimum: 0, description: 'epoch seconds, from the link' }),
          sig: Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$', description: 'signature, from the link' }),
        }),
        headers: Type.Object({
          range: Type.Optional(Type.String({ description: 'one byte range, e.g. bytes=0-1023' })),
          'if-range': Type.Optional(Type.String({ description: 'the ETag the range is meant for' })),
        }),
        response: {
          200: Bytes("the file's bytes, with its media type and name"),
          206: Bytes('the requested range of the bytes'),
          ...errorResponses(400, 403, 404, 416),
        },
      },
    },
    async (request, reply) => {
      const { fileId } = request.params;
      const check = links.check(fileId, request.query.expires, request.query.sig);
      if (check === 'invalid') throw forbidden('this download link is not valid', 'link_invalid');
      if (check === 'expired') throw forbidden('this download link has expired; ask for the file again', 'link_expired');
      const file = await context.directory.getFile(fileId);
      const content = file && file.status === 'active' && file.hasStoredContent ? await context.storedContent.open(fileId) : undefined;
      if (!file || !content) throw notFound(`no stored content for file ${fileId}`, 'content_not_found');
      // The signed link is the credential: it names no user (the one who asked for it is in that entry).
      recordAccess(context, request, { actorId: null, credential: 'download_link', fileId, permissions: { ...NO_PERMISSIONS, readable: true } });

      const { bytes, object } = content;
      const etag = `"${object.sha256}"`;
      const answer = answerRange(request.headers.range, bytes.size, { etag, ...(request.headers['if-range'] === undefined ? {} : { ifRange: request.headers['if-range'] }) });
      reply
        .header('accept-ranges', 'bytes')
        .header('etag', etag)
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        // Uploaded HTML or SVG is served with its own type: opened directly, it runs as a sandboxed page
        // of no origin, with no script, no cookies and no access to this one.
        .header('content-security-policy', 'sandbox');
      if (answer.kind === 'unsatisfiable') {
        await bytes.close();
        reply.header('content-range', `bytes */${bytes.size}`);
        throw new HttpError(416, 'range_not_satisfiable', `the file has ${bytes.size} bytes; ask for a range within them`);
      }
      const range = answer.kind === 'part' ? answer.range : undefined;
      reply
        .type(object.contentType || 'application/octet-stream')
        .header('content-disposition', contentDisposition(downloadName(file)))
        .header('content-length', range ? range.end - range.start + 1 : bytes.size);
      if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${bytes.size}`);
      if (request.method === 'HEAD') {
        await bytes.close();
        return reply.send(Readable.from([]));
      }
      return reply.send(await bytes.stream(range));
    },
  );
};
