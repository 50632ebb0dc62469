import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { DownloadLinks } from '../auth/download-link.js';
import type { FileRecord } from '../directory/types.js';
import { forbidden, notFound } from '../http/errors.js';
import { errorResponses } from '../http/schemas.js';

/**
 * `GET /content/{fileId}?expires=&sig=`: the stored bytes of a third-party file, for the platform's
 * preview download. No user token: the signed, expiring link from `GET /files/{fileId}` is the
 * credential, and it is checked before the file is looked up (a bad link learns nothing).
 */
export const fileContentRoutes: FastifyPluginAsync<{ context: AppContext }> = async (plugin, { context }) => {
  const app = plugin.withTypeProvider<TypeBoxTypeProvider>();
  const links = new DownloadLinks(context.config.tokenSecret, context.config.publicUrl);

  app.get(
    '/content/:fileId',
    {
      schema: {
        summary: 'Stored bytes of a third-party file, behind a signed expiring link',
        params: Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 256 }) }),
        querystring: Type.Object({
          expires: Type.Integer({ minimum: 0, description: 'epoch seconds, from the link' }),
          sig: Type.String({ pattern: '^[A-Za-z0-9_-]{1,128}$', description: 'signature, from the link' }),
        }),
        response: {
          200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: "the file's bytes, with its media type" }),
          ...errorResponses(400, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { fileId } = request.params;
      const check = links.check(fileId, request.query.expires, request.query.sig);
      if (check === 'invalid') throw forbidden('this download link is not valid', 'link_invalid');
      if (check === 'expired') throw forbidden('this download link has expired; ask for the file again', 'link_expired');
      const file = await context.directory.getFile(fileId);
      const content = file && file.status === 'active' && file.hasStoredContent ? await context.directory.getFileContent?.(fileId) : undefined;
      if (!file || !content) throw notFound(`no stored content for file ${fileId}`, 'content_not_found');
      return reply
        .type(content.contentType || 'application/octet-stream')
        .header('content-disposition', contentDisposition(downloadName(file)))
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .send(content.content);
    },
  );
};

/** The file's name, with its extension appended when the name does not already end with it. */
export function downloadName(file: Pick<FileRecord, 'name' | 'ext'>): string {
  const ext = file.ext?.replace(/^\.+/, '');
  return ext && !file.name.toLowerCase().endsWith(`.${ext.toLowerCase()}`) ? `${file.name}.${ext}` : file.name;
}

/** `attachment` with an ASCII fallback `filename` and the exact name as RFC 5987 `filename*`. */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
