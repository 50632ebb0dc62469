import { badParameters, refuse, SIMULATOR_ERRORS, type SimRequest } from './sim-auth.js';
import { checkFileId, DOCUMENT_TYPES, EXPORT_FORMATS, IMPORT_EXTENSIONS, NO_CONTENT, objectBody, ok, type SimRoute, type SimulatedWorld } from './sim-state.js';

const CREATE_LANGS = ['zh-CN', 'en', 'jp'];
const FILE = '([^/]+)';

/** 3.1 and 3.2: create, copy, delete, history, revisions, plain text, word count, mentions, comments, import, export. */
export function documentRoutes(world: SimulatedWorld): SimRoute[] {
  const requireToken = (token: string, what: string) => {
    if (!token) badParameters(`token is required to ${what}: the platform sends it back on the document's callbacks`);
  };
  const checkNew = (fileId: unknown): string => {
    const id = checkFileId(fileId);
    if (world.files.has(id)) refuse(SIMULATOR_ERRORS.fileExists, `file id "${id}" already exists`);
    return id;
  };
  const checkType = (type: unknown): string => {
    if (typeof type !== 'string' || !(DOCUMENT_TYPES as readonly string[]).includes(type)) {
      return badParameters(`type must be one of ${DOCUMENT_TYPES.join(', ')}, not ${JSON.stringify(type)}`);
    }
    return type;
  };

  const startImport = (fields: Record<string, unknown>, token: string) => {
    requireToken(token, 'import');
    const fileId = checkNew(fields.fileId);
    const type = checkType(fields.type);
    const extensions = IMPORT_EXTENSIONS[type] ?? [];
    const hasFile = fields.file instanceof Blob;
    const fileName = typeof fields.fileName === 'string' && fields.fileName !== '' ? fields.fileName : hasFile ? (fields.file as File).name : '';
    if (!hasFile && (typeof fields.fileUrl !== 'string' || !/^https?:\/\//.test(fields.fileUrl))) badParameters('fileUrl (http or https) or a file part is required');
    const extension = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase() ?? '';
    if (!extensions.includes(extension)) badParameters(`a ${type} imports ${extensions.join(', ') || 'nothing'}; fileName "${fileName}" is not one`);
    const taskId = world.nextId('import');
    world.tasks.set(taskId, { kind: 'import', progress: 0, fileId, type, fileName, token });
    return ok({ status: 0, message: '', data: { taskId } });
  };
  const importProgress = (taskId: unknown) => {
    if (typeof taskId !== 'string' || taskId === '') badParameters('taskId is required');
    const task = world.advance(taskId as string, 'import');
    // The document exists once its import is done (an id taken meanwhile fails the import).
    if (task.progress === 100 && !world.files.has(task.fileId)) world.addFile(task.fileId, task.type ?? 'document', task.token, `imported from ${task.fileName}`);
    return ok({ status: 0, message: '', data: { progress: task.progress } });
  };

  return [
    {
      method: 'POST',
      pattern: /^\/sdk\/v2\/api\/files$/,
      scope: 'default',
      handle(request, _params, caller) {
        const body = objectBody(request, '{ type, fileId, contentKey? }');
        const lang = request.query.get('lang');
        if (lang !== null && !CREATE_LANGS.includes(lang)) badParameters(`lang must be one of ${CREATE_LANGS.join(', ')}`);
        requireToken(caller.token, 'create a document');
        const type = checkType(body.type);
        const fileId = checkNew(body.fileId);
        if (body.contentKey !== undefined && typeof body.contentKey !== 'string') badParameters('contentKey must be a string');
        world.addFile(fileId, type, caller.token);
        return NO_CONTENT;
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/sdk/v2/collab-files/${FILE}/copy$`),
      scope: 'default',
      handle(request, [origin], caller) {
        const source = world.file(origin!);
        requireToken(caller.token, 'copy a document');
        const fileId = checkNew(objectBody(request, '{ fileId }').fileId);
        const copy = world.addFile(fileId, source.type, caller.token, source.text);
        for (const [name, rows] of source.sheets)
          copy.sheets.set(
            name,
            rows.map((row) => [...row]),
          );
        for (const [name, text] of source.bookmarks) copy.bookmarks.set(name, text);
        return NO_CONTENT;
      },
    },
    {
      method: 'DELETE',
      pattern: new RegExp(`^/sdk/v2/api/files/${FILE}$`),
      scope: 'default',
      handle(_request, [fileId]) {
        world.files.delete(world.file(fileId!).fileId);
        return NO_CONTENT;
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/sdk/v2/collab-files/${FILE}/doc-sidebar-info$`),
      scope: 'default',
      handle(request, [fileId]) {
        const file = world.file(fileId!);
        const pageSize = nonNegative(request, 'pageSize', 20);
        const offset = nonNegative(request, 'count', 0);
        const historyType = nonNegative(request, 'historyType', 2);
        const matching = file.history.filter((entry) => entry.historyType === historyType);
        const histories = matching.slice(offset, offset + Math.max(pageSize, 1));
        return ok({ histories, isLastPage: offset + histories.length >= matching.length, limit: pageSize, users: {} });
      },
    },
    { method: 'GET', pattern: new RegExp(`^/sdk/v2/collab-files/${FILE}/revisions$`), scope: 'default', handle: (_r, [id]) => ok(world.file(id!).revisions) },
    { method: 'GET', pattern: new RegExp(`^/sdk/v2/collab-files/${FILE}/plain-text$`), scope: 'default', handle: (_r, [id]) => ok({ content: world.file(id!).text }) },
    {
      method: 'POST',
      pattern: new RegExp(`^/sdk/v2/collab-files/${FILE}/plain-text/wc$`),
      scope: 'default',
      handle(_request, [fileId]) {
        const words = world
          .file(fileId!)
          .text.split(/\s+/)
          .filter((word) => word !== '');
        const keywords: Record<string, number> = Object.create(null) as Record<string, number>; // words of the text are its keys
        for (const word of words) keywords[word] = (keywords[word] ?? 0) + 1;
        return ok({ wordCount: words.length, keywords });
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^/sdk/v2/collab-files/${FILE}/mention-at-list$`),
      scope: 'default',
      handle: (_r, [id]) => ok({ mentionAtList: world.file(id!).mentions }),
    },
    { method: 'GET', pattern: new RegExp(`^/sdk/v2/collab-files/${FILE}/comment-count$`), scope: 'default', handle: (_r, [id]) => ok({ count: world.file(id!).comments }) },
    { method: 'POST', pattern: /^\/sdk\/v2\/api\/files\/v1\/import$/, scope: 'default', handle: (request, _p, caller) => startImport(formFields(request), caller.token) },
    {
      method: 'POST',
      pattern: /^\/sdk\/v2\/api\/files\/v2\/import$/,
      scope: 'default',
      handle: (request, _p, caller) => startImport(objectBody(request, '{ fileId, type, fileUrl, fileName }'), caller.token),
    },
    { method: 'POST', pattern: /^\/sdk\/v2\/api\/files\/v1\/import\/progress$/, scope: 'default', handle: (request) => importProgress(request.query.get('taskId')) },
    { method: 'POST', pattern: /^\/sdk\/v2\/api\/files\/v2\/import\/progress$/, scope: 'default', handle: (request) => importProgress(objectBody(request, '{ taskId }').taskId) },
    // Before the export of a file: `progress` would otherwise be taken for a fileId.
    {
      method: 'POST',
      pattern: /^\/sdk\/v2\/api\/files\/v1\/export\/progress$/,
      scope: 'default',
      handle(request) {
        const taskId = request.query.get('taskId') ?? badParameters('taskId is required');
        const task = world.advance(taskId, 'export');
        if (task.progress < 100) return ok({ status: 0, message: '', data: { progress: task.progress, downloadUrl: '' } });
        const text = world.files.get(task.fileId)?.text ?? '';
        world.downloads.set(taskId, { bytes: Buffer.from(`simulated ${task.format} export of ${task.fileId}\n${text}`), contentType: 'application/octet-stream' });
        return ok({ status: 0, message: '', data: { progress: 100, downloadUrl: `${world.baseUrl}/simulator/downloads/${encodeURIComponent(taskId)}` } });
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/sdk/v2/api/files/v1/export/${FILE}$`),
      scope: 'default',
      handle(request, [fileId], caller) {
        const file = world.file(fileId!);
        const format = objectBody(request, '{ type }').type;
        const formats = EXPORT_FORMATS[file.type] ?? [];
        if (typeof format !== 'string' || !formats.includes(format)) badParameters(`a ${file.type} exports to ${formats.join(', ') || 'nothing'}, not ${JSON.stringify(format)}`);
        const taskId = world.nextId('export');
        world.tasks.set(taskId, { kind: 'export', progress: 0, fileId: file.fileId, format: format as string, token: caller.token });
        return ok({ status: 0, message: '', data: { taskId } });
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^/sdk/v2/api/files/export/table-sheets/${FILE}$`),
      scope: 'default',
      handle(_request, [fileId]) {
        const file = world.file(fileId!);
        if (file.type !== 'table') return ok({ status: 1, message: `file "${file.fileId}" is a ${file.type}, not an application table`, downloadUrl: '' });
        const id = world.nextId('table');
        world.downloads.set(id, {
          bytes: Buffer.from(`simulated xlsx export of ${file.fileId}`),
          contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        });
        return ok({ status: 0, message: '', downloadUrl: `${world.baseUrl}/simulator/downloads/${id}` });
      },
    },
  ];
}

/** The multipart fields (text, or a File for a file part); multipart is required. */
function formFields(request: SimRequest): Record<string, unknown> {
  if (!request.form) return badParameters('the body must be multipart/form-data');
  return Object.fromEntries(request.form.entries());
}

function nonNegative(request: SimRequest, name: string, fallback: number): number {
  const text = request.query.get(name);
  if (text === null || text === '') return fallback;
  if (!/^\d+$/.test(text)) return badParameters(`${name} must be a whole number`);
  return Number(text);
}
