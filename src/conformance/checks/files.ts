import { randomUUID } from 'node:crypto';
import type { Check, CheckContext } from '../check.js';
import { isRecord } from '../jwt.js';
import { query, seg } from '../probe.js';
import { FILE, PREVIEW, arrayOf } from '../shapes.js';
import { collaborativeFiles } from './common.js';

/** A file object as some endpoint answered it, with where it came from. */
export interface FileSighting {
  where: string;
  file: Record<string, unknown>;
}

/**
 * The file objects the kit can see as the user: `GET /files`, `GET /files/{fileId}` of the files seen
 * there (at most 8) and `GET /search/files/recent`. Unreadable answers are skipped here; the shape
 * checks report them.
 */
export async function fileSightings(c: CheckContext): Promise<FileSighting[]> {
  const sightings: FileSighting[] = [];
  const list = async (path: string) => {
    const answer = await c.probe.read(path);
    if (answer.status !== 200 || !Array.isArray(answer.body)) return;
    answer.body.forEach((file, index) => isRecord(file) && sightings.push({ where: `GET ${path} [${index}]`, file }));
  };
  await list(`/files${query({ limit: 50, orderBy: 'updated_at' })}`);
  for (const seen of c.found.files.slice(0, 8)) {
    const answer = await c.probe.read(`/files/${seg(seen.id)}`);
    if (answer.status === 200 && isRecord(answer.body)) sightings.push({ where: `GET /files/${seen.id}`, file: answer.body });
  }
  if (c.found.fileId !== undefined) await list(`/search/files/recent${query({ fileId: c.found.fileId })}`);
  return sightings;
}

/** Parts 2.1-2.3 and 4.1: the file endpoints and the rules on their fields. */
export const fileChecks: Check[] = [
  {
    id: 'files.list',
    group: 'files',
    section: '4.1',
    title: 'GET /files?limit&orderBy answers an array of File, at most limit of them, for both orders',
    async run(c) {
      for (const orderBy of ['updated_at', 'created_at']) {
        const path = `/files${query({ limit: 3, orderBy })}`;
        const body = c.ok(await c.probe.read(path));
        if (body === undefined || !c.shape(arrayOf(FILE), body, `GET ${path}`)) continue;
        if ((body as unknown[]).length > 3) c.fail(`GET ${path} answered ${(body as unknown[]).length} files`);
      }
    },
  },
  {
    id: 'files.get',
    group: 'files',
    section: '4.1',
    title: 'GET /files/{fileId} answers the collaborative File (2.2) of that id',
    async run(c) {
      const files = collaborativeFiles(c, 5);
      if (files.length === 0) return c.skip('no collaborative document found: give one with --file-id');
      for (const file of files) {
        const body = c.ok(await c.probe.read(`/files/${seg(file.id)}`));
        if (body === undefined || !c.shape(FILE, body, `file ${file.id}`)) continue;
        if ((body as { id: string }).id !== file.id) c.fail(`GET /files/${file.id} answered id "${(body as { id: string }).id}"`);
      }
    },
  },
  {
    id: 'files.views',
    group: 'files',
    section: '2.2',
    title: 'views, when returned, is a whole number (absent means 1)',
    async run(c) {
      const sightings = await fileSightings(c);
      if (sightings.length === 0) return c.skip('no file visible to the user');
      for (const { where, file } of sightings) {
        if (file.views === undefined) continue;
        if (typeof file.views !== 'number' || !Number.isInteger(file.views) || file.views < 0) {
          c.fail(`${where}: views ${JSON.stringify(file.views)} is not a whole number`);
        }
      }
    },
  },
  {
    id: 'files.editable-copyable',
    group: 'files',
    section: '2.1',
    title: 'whenever permissions.editable is true, permissions.copyable is true',
    async run(c) {
      const sightings = await fileSightings(c);
      let editable = 0;
      for (const { where, file } of sightings) {
        const permissions = file.permissions;
        if (!isRecord(permissions) || permissions.editable !== true) continue;
        editable++;
        if (permissions.copyable !== true) c.fail(`${where} (${String(file.id)}): editable without copyable`);
      }
      if (editable === 0) return c.skip('the user may edit none of the files seen');
    },
  },
  {
    id: 'files.preview',
    group: 'files',
    section: '2.3',
    title: 'a third-party file (type file) answers the preview shape: permissions.readable, downloadUrl, ext without a dot',
    async run(c) {
      const fileId = c.found.previewFileId;
      if (fileId === undefined) return c.skip('no third-party file (type "file") visible to the user');
      const body = c.ok(await c.probe.read(`/files/${seg(fileId)}`));
      if (body === undefined || !c.shape(PREVIEW, body, `preview ${fileId}`)) return;
      const preview = body as { permissions: { readable: boolean }; downloadUrl: string; ext?: string };
      if (preview.permissions.readable && !/^https?:\/\//.test(preview.downloadUrl)) {
        c.fail(`preview ${fileId}: downloadUrl ${JSON.stringify(preview.downloadUrl)} is not an http(s) address the platform can download`);
      }
      if (preview.ext !== undefined && (preview.ext.startsWith('.') || preview.ext === '')) {
        c.fail(`preview ${fileId}: ext ${JSON.stringify(preview.ext)} must be the extension without a dot, e.g. "docx"`);
      }
    },
  },
  {
    id: 'files.unknown',
    group: 'files',
    section: '7',
    title: 'GET /files/{fileId} of an id that does not exist answers a 4xx, not a file and not a 5xx',
    async run(c) {
      const id = `conformance-missing-${randomUUID()}`;
      const answer = await c.probe.read(`/files/${id}`);
      if (answer.status < 400 || answer.status > 499) c.fail(`GET /files/${id} answered ${answer.status}`);
    },
  },
];
