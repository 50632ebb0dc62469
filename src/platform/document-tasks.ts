import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { formatTime } from '../directory/time.js';
import { DOCUMENT_TYPES, DocumentInputError, newFile, notConfigured, placeDocument, type DocumentDeps } from './create-document.js';
import { downloadExport, type ExportDownload } from './export-download.js';
import { PlatformError } from './platform-errors.js';
import { EXPORT_FORMATS, IMPORT_EXTENSIONS } from './platform-requests.js';
import type { PutOutcome } from '../storage/file-storage.js';
import type { PlatformTaskRow, PlatformTaskStore } from '../store/platform/platform-tasks.js';

/** The task bookkeeping of the import and export flows (table `platform_tasks`). */
export type DocumentTaskStore = PlatformTaskStore;
type TaskStatus = 'running' | 'done' | 'failed';
type TaskRow = PlatformTaskRow;

/** Where an export's bytes are kept: the file storage, the one path of every stored byte (FileStorage.put). */
export interface ExportContents {
  put(fileId: string, body: Readable, meta: { contentType?: string; declaredSize?: number }): Promise<PutOutcome>;
}

export interface DocumentTaskDeps extends DocumentDeps {
  tasks: DocumentTaskStore;
  /** Stores an export's bytes (size limit, hash, media type, back end) as an upload would. */
  contents: ExportContents;
  /** Fetches an export's bytes (injectable for tests; default: an HTTP GET with a time-out). */
  download?: (url: string) => Promise<ExportDownload>;
}

/** The exported bytes could not be kept (larger than FILE_MAX_SIZE): the task fails with this message. */
class ExportNotKept extends Error {}

/** A task as the management API and the CLI show it. */
export interface TaskView {
  taskId: string;
  /** import: the new document; export: the exported document. */
  fileId: string;
  status: TaskStatus;
  progress: number;
  /** export: the third-party file holding the exported bytes, once done. */
  exportFileId?: string;
  format?: string;
  message?: string;
}

/**
 * Imports a file into a new collaborative document: the record is reserved `pending` (never served),
 * the platform's import is started (v1 multipart or v2 JSON), and the task is recorded. The document
 * becomes `active` when `importStatus` sees the task finish.
 */
export async function startImport(
  deps: DocumentTaskDeps,
  input: { creatorId: string; type: string; fileUrl: string; fileName: string; name?: string; fileId?: string; version?: 1 | 2 },
): Promise<TaskView> {
  const extensions = IMPORT_EXTENSIONS[input.type];
  if (!extensions || !DOCUMENT_TYPES.includes(input.type)) {
    throw new DocumentInputError(
      'invalid',
      `type must be one of ${Object.keys(IMPORT_EXTENSIONS)
        .filter((t) => DOCUMENT_TYPES.includes(t))
        .join(', ')}`,
    );
  }
  const extension = /\.([A-Za-z0-9]+)$/.exec(input.fileName)?.[1]?.toLowerCase();
  if (!extension || !extensions.includes(extension)) throw new DocumentInputError('invalid', `a ${input.type} imports ${extensions.join(', ')} files, not "${input.fileName}"`);
  if (!/^https?:\/\//.test(input.fileUrl)) throw new DocumentInputError('invalid', 'fileUrl must start with http(s)://');
  const version = input.version ?? 1;
  let taskId = '';
  const file = await placeDocument(
    deps,
    { creatorId: input.creatorId, type: input.type, name: input.name ?? input.fileName, ...(input.fileId ? { fileId: input.fileId } : {}) },
    async (platform, fileId, user) => {
      taskId = (await platform.importFile({ fileId, type: input.type, fileUrl: input.fileUrl, fileName: input.fileName, version }, user)).taskId;
    },
    { keepPending: true },
  );
  await deps.tasks.insert({ kind: 'import', taskId, fileId: file.id, userId: input.creatorId, version, format: null, nowIso: nowIso(deps) });
  return { taskId, fileId: file.id, status: 'running', progress: 0 };
}

/** Asks the platform how an import goes; at 100 the document becomes `active`, on a reported failure it is removed. */
export async function importStatus(deps: DocumentTaskDeps, taskId: string): Promise<TaskView | undefined> {
  const task = await deps.tasks.get('import', taskId);
  if (!task) return undefined;
  if (task.status !== 'running') return view(task);
  if (!deps.platform) throw notConfigured();
  try {
    const { progress } = await deps.platform.importProgress({ taskId, version: task.version === 2 ? 2 : 1 }, deps.userFor(task.user_id));
    if (progress < 100) {
      await deps.tasks.update('import', taskId, { progress, nowIso: nowIso(deps) });
      return { ...view(task), progress };
    }
    await deps.records.setStatus(task.file_id, 'active');
    await deps.tasks.update('import', taskId, { status: 'done', progress: 100, nowIso: nowIso(deps) });
    return { ...view(task), status: 'done', progress: 100 };
  } catch (error) {
    if (!(error instanceof PlatformError && error.failure === 'failed')) throw error;
    await deps.records.remove(task.file_id);
    await deps.tasks.update('import', taskId, { status: 'failed', message: error.message, nowIso: nowIso(deps) });
    return { ...view(task), status: 'failed', message: error.message };
  }
}

/** Starts exporting a document to `format` (the kit's formats per type); `userId` is whose token the calls carry. */
export async function startExport(deps: DocumentTaskDeps, input: { fileId: string; userId: string; format: string }): Promise<TaskView> {
  if (!deps.platform) throw notConfigured();
  const file = await deps.directory.getFile(input.fileId);
  if (!file || file.status !== 'active') throw new DocumentInputError('unknown-file', `file ${input.fileId} does not exist`);
  const formats = EXPORT_FORMATS[file.type];
  if (!formats) throw new DocumentInputError('invalid', `a ${file.type} cannot be exported this way${file.type === 'table' ? ' (use the table export)' : ''}`);
  if (!formats.includes(input.format)) throw new DocumentInputError('invalid', `a ${file.type} exports to ${formats.join(', ')}, not "${input.format}"`);
  const { taskId } = await deps.platform.exportFile({ fileId: file.id, format: input.format }, deps.userFor(input.userId));
  await deps.tasks.insert({ kind: 'export', taskId, fileId: file.id, userId: input.userId, version: 1, format: input.format, nowIso: nowIso(deps) });
  return { taskId, fileId: file.id, status: 'running', progress: 0, format: input.format };
}

/**
 * Asks the platform how an export goes. When it is done, the exported bytes are fetched from its
 * `downloadUrl` and kept as a third-party file (type `file`, created by the user who asked) whose id is
 * derived from the task, so two polls racing at the end make one file.
 */
export async function exportStatus(deps: DocumentTaskDeps, taskId: string): Promise<TaskView | undefined> {
  const task = await deps.tasks.get('export', taskId);
  if (!task) return undefined;
  if (task.status !== 'running') return view(task);
  if (!deps.platform) throw notConfigured();
  let progress: number;
  let downloadUrl: string | undefined;
  try {
    ({ progress, downloadUrl } = await deps.platform.exportProgress({ taskId }, deps.userFor(task.user_id)));
  } catch (error) {
    if (!(error instanceof PlatformError && error.failure === 'failed')) throw error;
    await deps.tasks.update('export', taskId, { status: 'failed', message: error.message, nowIso: nowIso(deps) });
    return { ...view(task), status: 'failed', message: error.message };
  }
  if (progress < 100 || !downloadUrl) {
    await deps.tasks.update('export', taskId, { progress: Math.min(progress, 99), nowIso: nowIso(deps) });
    return { ...view(task), progress: Math.min(progress, 99) };
  }
  let exportFileId: string;
  try {
    exportFileId = await keepExport(deps, task, downloadUrl);
  } catch (error) {
    if (!(error instanceof ExportNotKept)) throw error;
    await deps.tasks.update('export', taskId, { status: 'failed', message: error.message, nowIso: nowIso(deps) });
    return { ...view(task), status: 'failed', message: error.message };
  }
  await deps.tasks.update('export', taskId, { status: 'done', progress: 100, resultFileId: exportFileId, nowIso: nowIso(deps) });
  return { ...view(task), status: 'done', progress: 100, exportFileId };
}

async function keepExport(deps: DocumentTaskDeps, task: TaskRow, downloadUrl: string): Promise<string> {
  const format = task.format ?? 'bin';
  const id = `export-${createHash('sha256').update(task.task_id).digest('hex').slice(0, 32)}`;
  const [source, user] = await Promise.all([deps.directory.getFile(task.file_id), deps.directory.getUser(task.user_id)]);
  if (!user) throw new DocumentInputError('unknown-user', `user ${task.user_id} no longer exists`);
  const download = await (deps.download ?? downloadExport)(downloadUrl);
  const name = `${source?.name ?? task.file_id}.${format}`;
  if (!(await deps.records.reserve(newFile(deps, user, { id, name, type: 'file', ext: format })))) {
    download.body.destroy(); // another poll keeps it
    return id;
  }
  // The media type follows the format (the file's ext), whatever the platform's download says.
  let outcome: PutOutcome;
  try {
    outcome = await deps.contents.put(id, download.body, download.declaredSize === undefined ? {} : { declaredSize: download.declaredSize });
  } catch (error) {
    await deps.records.remove(id);
    throw error;
  }
  if (!outcome.ok) {
    download.body.destroy();
    await deps.records.remove(id);
    if (outcome.reason === 'too_large') throw new ExportNotKept('the exported file is larger than FILE_MAX_SIZE; nothing was kept');
    throw new Error(`the export's file ${id} could not be stored (${outcome.reason})`);
  }
  await deps.records.setStatus(id, 'active');
  return id;
}

function view(task: TaskRow): TaskView {
  return {
    taskId: task.task_id,
    fileId: task.file_id,
    status: task.status as TaskStatus,
    progress: task.progress,
    ...(task.result_file_id ? { exportFileId: task.result_file_id } : {}),
    ...(task.format ? { format: task.format } : {}),
    ...(task.message ? { message: task.message } : {}),
  };
}

const nowIso = (deps: DocumentTaskDeps) => formatTime((deps.now ?? Date.now)());
