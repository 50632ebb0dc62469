import { createHash } from 'node:crypto';
import { isRecord } from '../jwt.js';
import { badParameters } from './sim-auth.js';
import { NO_CONTENT, objectBody, ok, type SimRoute, type SimulatedFile, type SimulatedWorld } from './sim-state.js';

const FILE = '([^/]+)';
const UPLOAD_BUCKETS = ['attachments', 'assets', 'avatar', 'images'];
const AI_STATES = ['pending', 'processing', 'completed'];

/** 3.3, 3.4 and 3.6: sheet cells, bookmarks, attachments, previews and the AI knowledge base. */
export function contentRoutes(world: SimulatedWorld): SimRoute[] {
  const sheetOf = (file: SimulatedFile, range: unknown): { rows: unknown[][]; cells: CellRange } => {
    if (typeof range !== 'string') return badParameters('range is required, e.g. Sheet1!A1:C3');
    if (!file.sheets.size) return badParameters(`file "${file.fileId}" is a ${file.type}, not a spreadsheet`);
    const cells = parseRange(range);
    const rows = file.sheets.get(cells.sheet);
    if (!rows) return badParameters(`no sheet "${cells.sheet}"`);
    return { rows, cells };
  };
  const valuesOf = (body: Record<string, unknown>): unknown[][] => {
    const values = isRecord(body.resource) ? body.resource.values : undefined;
    if (!Array.isArray(values) || !values.every(Array.isArray)) return badParameters('resource.values must be an array of rows');
    return values as unknown[][];
  };
  const documentPro = (fileId: string): SimulatedFile => {
    const file = world.file(fileId);
    if (file.type !== 'documentPro') badParameters(`bookmarks are for documentPro files; "${fileId}" is a ${file.type}`);
    return file;
  };

  return [
    {
      method: 'GET',
      pattern: new RegExp(`^/sdk/v2/api/files/${FILE}/sheets/values$`),
      scope: 'default',
      handle(request, [fileId]) {
        const { rows, cells } = sheetOf(world.file(fileId!), request.query.get('range'));
        const values = rows.slice(cells.top, cells.bottom + 1).map((row) => Array.from({ length: cells.right - cells.left + 1 }, (_, i) => row[cells.left + i] ?? null));
        return ok({ values, lag: 0 });
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/sdk/v2/api/files/${FILE}/sheets/values$`),
      scope: 'default',
      handle(request, [fileId]) {
        const body = objectBody(request, '{ range, resource: { values } }');
        const { rows, cells } = sheetOf(world.file(fileId!), body.range);
        valuesOf(body).forEach((values, r) => {
          const row = (rows[cells.top + r] ??= []);
          values.forEach((value, c) => (row[cells.left + c] = value));
        });
        for (let i = 0; i < rows.length; i++) rows[i] ??= [];
        return NO_CONTENT;
      },
    },
    {
      method: 'PUT',
      pattern: new RegExp(`^/sdk/v2/api/files/${FILE}/sheets/values$`),
      scope: 'default',
      handle(request, [fileId]) {
        const body = objectBody(request, '{ range, resource: { values } }');
        const { rows, cells } = sheetOf(world.file(fileId!), body.range);
        for (const values of valuesOf(body)) rows.push([...Array<unknown>(cells.left).fill(null), ...values]);
        return NO_CONTENT;
      },
    },
    {
      method: 'DELETE',
      pattern: new RegExp(`^/sdk/v2/api/files/${FILE}/sheets/${FILE}/rows/(\\d+)$`),
      scope: 'default',
      handle(request, [fileId, sheet, index]) {
        const count = Number(request.query.get('count') ?? '1');
        if (!Number.isInteger(count) || count < 1) badParameters('count must be a positive whole number');
        const { rows } = sheetOf(world.file(fileId!), `${sheet}!A1`);
        // The simulator takes the index as a 1-based row number, as a sheet shows it.
        if (Number(index) < 1 || Number(index) > rows.length) badParameters(`row ${index} does not exist in ${sheet}`);
        rows.splice(Number(index) - 1, count);
        return NO_CONTENT;
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/sdk/v2/api/files/${FILE}/sheets$`),
      scope: 'default',
      handle(request, [fileId]) {
        const file = world.file(fileId!);
        const name = objectBody(request, '{ name }').name;
        if (typeof name !== 'string' || name === '' || name.includes('!')) badParameters('name must be a sheet name');
        if (!file.sheets.size) badParameters(`file "${file.fileId}" is a ${file.type}, not a spreadsheet`);
        if (file.sheets.has(name as string)) badParameters(`sheet "${name}" already exists`);
        file.sheets.set(name as string, []);
        return NO_CONTENT;
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/sdk/v2/api/files/${FILE}/documentpro/bookmark_content$`),
      scope: 'default',
      handle(request, [fileId]) {
        const file = documentPro(fileId!);
        const names = request.query.getAll('bookmarks');
        if (names.length === 0) badParameters('bookmarks is required (once per bookmark)');
        return ok({ data: names.filter((name) => file.bookmarks.has(name)).map((bookmark) => ({ bookmark, content: file.bookmarks.get(bookmark) })) });
      },
    },
    {
      method: 'PUT',
      pattern: new RegExp(`^/sdk/v2/api/files/${FILE}/documentpro/bookmark_content$`),
      scope: 'default',
      handle(request, [fileId]) {
        const file = documentPro(fileId!);
        const { replacements } = objectBody(request, '{ replacements: [{ bookmark, type, value }] }');
        if (!Array.isArray(replacements) || !replacements.every((r) => isRecord(r) && typeof r.bookmark === 'string' && r.type === 'text' && typeof r.value === 'string')) {
          badParameters('replacements must be [{ bookmark, type: "text", value }]');
        }
        for (const r of replacements as Array<{ bookmark: string; value: string }>) file.bookmarks.set(r.bookmark, r.value);
        return NO_CONTENT;
      },
    },
    {
      method: 'POST',
      pattern: /^\/uploader\/token$/,
      scope: 'default',
      handle(request) {
        const items = request.json;
        if (!Array.isArray(items) || items.length === 0) badParameters('the body must be a JSON array [{ bucket, filename, fileGuid, fileSize, encrypt }]');
        return ok(
          (items as unknown[]).map((item) => {
            if (!isRecord(item) || !UPLOAD_BUCKETS.includes(String(item.bucket)) || typeof item.filename !== 'string' || typeof item.fileSize !== 'number') {
              return badParameters(`each item needs bucket (${UPLOAD_BUCKETS.join(', ')}), filename and fileSize`);
            }
            const guid = typeof item.fileGuid === 'string' && item.fileGuid ? item.fileGuid : world.nextId('guid');
            const accessToken = createHash('sha256')
              .update(`${guid}:${world.nextId('upload')}`)
              .digest('hex');
            world.uploadTokens.set(accessToken, { filename: item.filename, bucket: String(item.bucket), guid });
            return {
              accessToken,
              directory: String(item.bucket),
              download: '',
              guid,
              images: '',
              fileFieldKey: 'file',
              key: guid,
              serverUrl: `${world.baseUrl}/uploader/upload`,
              url: '',
            };
          }),
        );
      },
    },
    {
      method: 'POST',
      pattern: /^\/uploader\/upload$/,
      scope: 'default',
      handle(request) {
        const form = request.form ?? badParameters('the body must be multipart/form-data');
        const grant = world.uploadTokens.get(String(form.get('accessToken') ?? ''));
        const file = form.get('file');
        if (!grant) return ok({ code: 1, data: null, body: {} });
        if (!(file instanceof Blob)) badParameters('a file part named "file" is required');
        world.uploadTokens.delete(String(form.get('accessToken')));
        const url = `${world.baseUrl}/simulator/attachments/${grant.guid}`;
        return ok({
          code: 0,
          data: null,
          body: {
            GUID: grant.guid,
            filename: grant.filename,
            key: grant.guid,
            mimeType: (file as Blob).type || 'application/octet-stream',
            images: '',
            url,
            size: String((file as Blob).size),
          },
        });
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/sdk/v2/api/cloud-files/${FILE}/create$`),
      scope: 'default',
      handle(_request, [fileId]) {
        world.previews.add(fileId!);
        return ok({ code: '', message: '' });
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/sdk/v2/api/cloud-files/${FILE}/page$`),
      scope: 'default',
      handle(_request, [fileId]) {
        if (!world.previews.has(fileId!)) return ok({ code: 'preview_not_created', message: `no preview of "${fileId}": create it first` });
        return { status: 200, contentType: 'text/html; charset=utf-8', text: `<!doctype html><title>preview</title><p>preview of ${fileId!.replace(/[<>&"']/g, '')}</p>` };
      },
    },
    ...aiRoutes(world),
  ];
}

function aiRoutes(world: SimulatedWorld): SimRoute[] {
  const importBody = (request: Parameters<SimRoute['handle']>[0]) => {
    const body = objectBody(request, '{ knowledgeBaseGuid, importType, fileGuid, fileType, downloadUrl }');
    const { knowledgeBaseGuid, importType, fileGuid, fileType, downloadUrl } = body;
    if (typeof knowledgeBaseGuid !== 'string' || knowledgeBaseGuid === '') badParameters('knowledgeBaseGuid is required');
    if (importType === 'file' && (typeof fileGuid !== 'string' || fileGuid === '' || !['document', 'documentPro', 'spreadsheet', 'presentation'].includes(String(fileType)))) {
      badParameters('importType file needs fileGuid and a fileType of document, documentPro, spreadsheet or presentation');
    } else if (importType === 'url' && (typeof downloadUrl !== 'string' || !/^https?:\/\//.test(downloadUrl) || !['pdf', 'rtf'].includes(String(fileType)))) {
      badParameters('importType url needs an http(s) downloadUrl and a fileType of pdf or rtf');
    } else if (importType !== 'file' && importType !== 'url') badParameters('importType must be file or url');
    const files = world.knowledgeBases.get(knowledgeBaseGuid as string) ?? new Set<string>();
    world.knowledgeBases.set(knowledgeBaseGuid as string, files.add(String(importType === 'file' ? fileGuid : downloadUrl)));
  };
  return [
    { method: 'POST', pattern: /^\/sdk\/v2\/api\/ai\/rag\/import$/, scope: 'default', handle: (request) => (importBody(request), NO_CONTENT) },
    {
      method: 'POST',
      pattern: /^\/sdk\/v2\/api\/ai\/rag\/v2\/import$/,
      scope: 'default',
      handle(request, _params, caller) {
        importBody(request);
        const taskId = world.nextId('rag');
        world.tasks.set(taskId, { kind: 'ai', progress: 0, fileId: '', token: caller.token });
        return ok({ taskId });
      },
    },
    {
      method: 'POST',
      pattern: /^\/sdk\/v2\/api\/ai\/rag\/v2\/import\/progress$/,
      scope: 'default',
      handle(request) {
        const { taskId } = objectBody(request, '{ taskId }');
        const task = world.advance(String(taskId ?? ''), 'ai');
        return ok({ taskId, status: AI_STATES[Math.min(2, Math.floor(task.progress / 50))], progress: task.progress, message: '' });
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/sdk\/v2\/api\/ai\/rag\/delete$/,
      scope: 'default',
      handle(request) {
        const { knowledgeBaseGuid, fileGuid } = objectBody(request, '{ knowledgeBaseGuid, fileGuid }');
        if (!world.knowledgeBases.get(String(knowledgeBaseGuid))?.delete(String(fileGuid)))
          badParameters(`no file "${String(fileGuid)}" in knowledge base "${String(knowledgeBaseGuid)}"`);
        return ok({});
      },
    },
  ];
}

interface CellRange {
  sheet: string;
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/** `Sheet1!A1:C3` (or `Sheet1!B2`) as 0-based row and column bounds. */
function parseRange(range: string): CellRange {
  const match = /^([^!]+)!([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/.exec(range);
  if (!match) return badParameters(`range must look like Sheet1!A1:C3, not "${range}"`);
  const [, sheet, c1, r1, c2 = c1, r2 = r1] = match as unknown as [string, string, string, string, string?, string?];
  const column = (letters: string) => [...letters].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
  const [top, bottom] = [Number(r1) - 1, Number(r2) - 1].sort((a, b) => a - b) as [number, number];
  const [left, right] = [column(c1), column(c2!)].sort((a, b) => a - b) as [number, number];
  if (top < 0 || bottom - top > 10_000 || right - left > 1_000) return badParameters(`range "${range}" is out of bounds`);
  return { sheet, top, left, bottom, right };
}
