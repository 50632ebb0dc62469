import type { TSchema, Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { reportedFailure, unexpectedAnswer } from './platform-errors.js';
import * as Shapes from './platform-shapes.js';
import { PlatformTransport, type PlatformAnswer, type PlatformRequest, type PlatformTransportOptions, type PlatformUser } from './platform-transport.js';
import type * as In from './platform-requests.js';

export type { PlatformUser } from './platform-transport.js';
export { DEFAULT_PLATFORM_TIMEOUT_MS } from './platform-transport.js';

/** The platform API as the create-document flow needs it (a stand-in for tests may implement only this). */
export interface PlatformApi {
  /** `POST /sdk/v2/api/files?lang=`: resolves on 2xx (the platform answers 204). */
  createFile(request: In.CreateFile, user: PlatformUser): Promise<void>;
}

export type PlatformClientOptions = PlatformTransportOptions;

const seg = encodeURIComponent;
const checkers = new Map<TSchema, ReturnType<typeof Compile>>();
function checker(schema: TSchema): ReturnType<typeof Compile> {
  let compiled = checkers.get(schema);
  if (!compiled) checkers.set(schema, (compiled = Compile(schema)));
  return compiled;
}

/**
 * Every call of the platform API (platform-api.md section 3) as a typed method. Each resolves with the
 * documented body, checked against its schema (platform-shapes.ts); it rejects with a PlatformError that
 * quotes the platform's status and body when the platform answers anything but 2xx, answers 2xx with a
 * failure in the body (`status` ≠ 0, preview `code` ≠ ""), or with a body of another shape.
 * License-family calls (app, callback URL, seats) are signed with a fresh `scope: license` signature, the
 * others with an unscoped one. `user` is whose token travels with the call.
 */
export class PlatformClient implements PlatformApi {
  private readonly transport: PlatformTransport;

  constructor(options: PlatformClientOptions) {
    this.transport = new PlatformTransport(options);
  }

  get appId(): string {
    return this.transport.appId;
  }

  // 3.1 Collaborative documents

  async createFile(request: In.CreateFile, user: PlatformUser): Promise<void> {
    const json = { type: request.type, fileId: request.fileId, ...(request.contentKey === undefined ? {} : { contentKey: request.contentKey }) };
    await this.transport.send({
      method: 'POST',
      path: '/sdk/v2/api/files',
      query: { lang: request.lang ?? 'zh-CN' },
      json,
      scope: 'default',
      user,
      headers: { 'Accept-Language': 'zh-CN,zh;q=0.9,en;q=0.8' },
    });
  }

  async copyFile(request: In.CopyFile, user: PlatformUser): Promise<void> {
    await this.transport.send({ method: 'POST', path: `/sdk/v2/collab-files/${seg(request.fileId)}/copy`, json: { fileId: request.newFileId }, scope: 'default', user });
  }

  async deleteFile(request: In.FileRef, user?: PlatformUser): Promise<void> {
    await this.transport.send({ method: 'DELETE', path: `/sdk/v2/api/files/${seg(request.fileId)}`, scope: 'default', ...withUser(user) });
  }

  history(request: In.History, user?: PlatformUser): Promise<Shapes.HistoryPage> {
    const query = { pageSize: request.pageSize ?? 20, count: request.count ?? 0, historyType: request.historyType ?? 2 };
    return this.read({ method: 'GET', path: `/sdk/v2/collab-files/${seg(request.fileId)}/doc-sidebar-info`, query, scope: 'default', ...withUser(user) }, Shapes.HistoryPage);
  }

  revisions(request: In.FileRef, user?: PlatformUser): Promise<Shapes.RevisionList> {
    return this.read({ method: 'GET', path: `/sdk/v2/collab-files/${seg(request.fileId)}/revisions`, scope: 'default', ...withUser(user) }, Shapes.RevisionList);
  }

  plainText(request: In.FileRef, user?: PlatformUser): Promise<Static<typeof Shapes.PlainText>> {
    return this.read({ method: 'GET', path: `/sdk/v2/collab-files/${seg(request.fileId)}/plain-text`, scope: 'default', ...withUser(user) }, Shapes.PlainText);
  }

  wordCount(request: In.FileRef, user?: PlatformUser): Promise<Static<typeof Shapes.WordCount>> {
    return this.read({ method: 'POST', path: `/sdk/v2/collab-files/${seg(request.fileId)}/plain-text/wc`, scope: 'default', ...withUser(user) }, Shapes.WordCount);
  }

  mentions(request: In.FileRef, user?: PlatformUser): Promise<Shapes.MentionList> {
    return this.read({ method: 'GET', path: `/sdk/v2/collab-files/${seg(request.fileId)}/mention-at-list`, scope: 'default', ...withUser(user) }, Shapes.MentionList);
  }

  commentCount(request: In.FileRef, user?: PlatformUser): Promise<Static<typeof Shapes.CommentCount>> {
    return this.read({ method: 'GET', path: `/sdk/v2/collab-files/${seg(request.fileId)}/comment-count`, scope: 'default', ...withUser(user) }, Shapes.CommentCount);
  }

  // 3.2 Import and export

  /** Import v1 (multipart): from `fileUrl`, or from the bytes in `file`. Resolves with the task id. */
  async importFile(request: In.ImportFile, user: PlatformUser): Promise<{ taskId: string }> {
    if (request.version === 2) {
      const json = { fileId: request.fileId, type: request.type, fileUrl: request.fileUrl ?? '', fileName: request.fileName ?? '' };
      return this.startTask({ method: 'POST', path: '/sdk/v2/api/files/v2/import', json, scope: 'default', user });
    }
    const form = new FormData();
    form.set('fileId', request.fileId);
    form.set('type', request.type);
    form.set('fileUrl', request.fileUrl ?? '');
    form.set('fileName', request.fileName ?? request.file?.name ?? '');
    if (request.file) form.set('file', new Blob([new Uint8Array(request.file.bytes)]), request.file.name);
    return this.startTask({ method: 'POST', path: '/sdk/v2/api/files/v1/import', form, scope: 'default', user });
  }

  async importProgress(request: In.TaskRef & { version?: 1 | 2 }, user?: PlatformUser): Promise<{ progress: number }> {
    const call: PlatformRequest =
      request.version === 2
        ? { method: 'POST', path: '/sdk/v2/api/files/v2/import/progress', json: { taskId: request.taskId }, scope: 'default', ...withUser(user) }
        : { method: 'POST', path: '/sdk/v2/api/files/v1/import/progress', query: { taskId: request.taskId }, scope: 'default', ...withUser(user) };
    const body = await this.withStatus(call, Shapes.ImportProgressBody);
    return { progress: body.data?.progress ?? 0 };
  }

  exportFile(request: In.ExportFile, user?: PlatformUser): Promise<{ taskId: string }> {
    return this.startTask({ method: 'POST', path: `/sdk/v2/api/files/v1/export/${seg(request.fileId)}`, json: { type: request.format }, scope: 'default', ...withUser(user) });
  }

  async exportProgress(request: In.TaskRef, user?: PlatformUser): Promise<{ progress: number; downloadUrl?: string }> {
    const body = await this.withStatus(
      { method: 'POST', path: '/sdk/v2/api/files/v1/export/progress', query: { taskId: request.taskId }, scope: 'default', ...withUser(user) },
      Shapes.ExportProgressBody,
    );
    const downloadUrl = body.data?.downloadUrl;
    return { progress: body.data?.progress ?? 0, ...(downloadUrl ? { downloadUrl } : {}) };
  }

  async exportTableSheets(request: In.FileRef, user?: PlatformUser): Promise<{ downloadUrl: string }> {
    const call: PlatformRequest = { method: 'POST', path: `/sdk/v2/api/files/export/table-sheets/${seg(request.fileId)}`, scope: 'default', ...withUser(user) };
    const answer = await this.transport.send(call);
    const body = this.checked(answer, Shapes.TableExportBody);
    if (body.status !== 0) throw reportedFailure(answer.call, answer.status, answer.text, { field: 'status', value: String(body.status) });
    if (!body.downloadUrl) throw unexpectedAnswer(answer.call, answer.status, answer.text, 'no downloadUrl');
    return { downloadUrl: body.downloadUrl };
  }

  // 3.3 Spreadsheet content, bookmarks, attachments

  readCells(request: In.CellRange, user?: PlatformUser): Promise<Shapes.Cells> {
    return this.read(
      { method: 'GET', path: `/sdk/v2/api/files/${seg(request.fileId)}/sheets/values`, query: { range: request.range }, scope: 'default', ...withUser(user) },
      Shapes.Cells,
    );
  }

  async updateCells(request: In.CellValues, user?: PlatformUser): Promise<void> {
    const json = { range: request.range, resource: { values: request.values } };
    await this.transport.send({ method: 'POST', path: `/sdk/v2/api/files/${seg(request.fileId)}/sheets/values`, json, scope: 'default', ...withUser(user) });
  }

  async appendCells(request: In.CellValues, user?: PlatformUser): Promise<void> {
    const json = { range: request.range, resource: { values: request.values } };
    await this.transport.send({ method: 'PUT', path: `/sdk/v2/api/files/${seg(request.fileId)}/sheets/values`, json, scope: 'default', ...withUser(user) });
  }

  async deleteRows(request: In.DeleteRows, user?: PlatformUser): Promise<void> {
    const path = `/sdk/v2/api/files/${seg(request.fileId)}/sheets/${seg(request.sheetName)}/rows/${request.index}`;
    await this.transport.send({ method: 'DELETE', path, query: { count: request.count }, scope: 'default', ...withUser(user) });
  }

  async addSheet(request: In.AddSheet, user?: PlatformUser): Promise<void> {
    await this.transport.send({ method: 'POST', path: `/sdk/v2/api/files/${seg(request.fileId)}/sheets`, json: { name: request.name }, scope: 'default', ...withUser(user) });
  }

  readBookmarks(request: In.ReadBookmarks, user?: PlatformUser): Promise<Shapes.Bookmarks> {
    const path = `/sdk/v2/api/files/${seg(request.fileId)}/documentpro/bookmark_content`;
    return this.read({ method: 'GET', path, query: { bookmarks: request.bookmarks }, scope: 'default', ...withUser(user) }, Shapes.Bookmarks);
  }

  async replaceBookmarks(request: In.ReplaceBookmarks, user?: PlatformUser): Promise<void> {
    const path = `/sdk/v2/api/files/${seg(request.fileId)}/documentpro/bookmark_content`;
    const replacements = request.replacements.map((r) => ({ bookmark: r.bookmark, type: 'text', value: r.value }));
    await this.transport.send({ method: 'PUT', path, json: { replacements }, scope: 'default', ...withUser(user) });
  }

  uploadToken(request: In.UploadTokenRequest, user?: PlatformUser): Promise<Shapes.UploadTokens> {
    const json = request.files.map((file) => ({ bucket: file.bucket, filename: file.filename, fileGuid: file.fileGuid, fileSize: file.fileSize, encrypt: file.encrypt ?? '' }));
    return this.read({ method: 'POST', path: '/uploader/token', json, scope: 'default', ...withUser(user) }, Shapes.UploadTokens);
  }

  /** Sent to `{PLATFORM_API_URL}/uploader/upload` as the kit does (not to the token's `serverUrl`). */
  async upload(request: In.Upload, user?: PlatformUser): Promise<Shapes.Uploaded> {
    const form = new FormData();
    form.set('accessToken', request.accessToken);
    for (const download of request.download ?? []) form.append('download', download);
    form.set('file', new Blob([new Uint8Array(request.file.bytes)]), request.file.name);
    const answer = await this.transport.send({ method: 'POST', path: '/uploader/upload', form, scope: 'default', ...withUser(user) });
    const body = this.checked(answer, Shapes.Uploaded);
    if (body.code !== 0) throw reportedFailure(answer.call, answer.status, answer.text, { field: 'code', value: String(body.code) });
    return body;
  }

  // 3.4 Third-party file preview

  async createPreview(request: In.FileRef, user?: PlatformUser): Promise<void> {
    const answer = await this.transport.send({ method: 'POST', path: `/sdk/v2/api/cloud-files/${seg(request.fileId)}/create`, scope: 'default', ...withUser(user) });
    const body = this.checked(answer, Shapes.PreviewCreated);
    if (body.code) throw reportedFailure(answer.call, answer.status, answer.text, { field: 'code', value: body.code });
  }

  /** The preview page (HTML); the kit reads no body, this returns its text. */
  async previewPage(request: In.FileRef, user?: PlatformUser): Promise<{ html: string }> {
    const answer = await this.transport.send({ method: 'GET', path: `/sdk/v2/api/cloud-files/${seg(request.fileId)}/page`, scope: 'default', ...withUser(user) });
    return { html: answer.text };
  }

  // 3.5 License, app and seats (scope license)

  appDetails(): Promise<Shapes.AppDetails> {
    return this.read({ method: 'GET', path: `/sdk/v2/api/license/apps/${seg(this.appId)}`, scope: 'license' }, Shapes.AppDetails);
  }

  async updateCallbackUrl(request: { url: string }): Promise<void> {
    await this.transport.send({ method: 'PUT', path: `/sdk/v2/api/license/apps/${seg(this.appId)}/endpoint-url`, json: { url: request.url }, scope: 'license' });
  }

  listSeats(request: { page?: number; size?: number } = {}): Promise<Shapes.Seat[]> {
    return this.read({ method: 'GET', path: '/sdk/v2/api/license/users', query: { page: request.page ?? 1, size: request.size ?? 100 }, scope: 'license' }, Shapes.SeatList);
  }

  async activateSeats(userIds: readonly string[]): Promise<void> {
    await this.transport.send({ method: 'POST', path: '/sdk/v2/api/license/users/activate', json: { userIds }, scope: 'license' });
  }

  async deactivateSeats(userIds: readonly string[]): Promise<void> {
    await this.transport.send({ method: 'POST', path: '/sdk/v2/api/license/users/deactivate', json: { userIds }, scope: 'license' });
  }

  async setSeatStatus(userIds: readonly string[], status: Shapes.SeatStatus): Promise<void> {
    await this.transport.send({ method: 'POST', path: '/sdk/v2/api/license/users/set-status', json: { userIds, status }, scope: 'license' });
  }

  // 3.6 AI knowledge base

  /** v1 answers 204 (no task); v2 answers the task id. */
  async aiImport(request: In.AiImport, user?: PlatformUser): Promise<{ taskId?: string }> {
    const json = {
      knowledgeBaseGuid: request.knowledgeBaseGuid,
      importType: request.importType,
      fileGuid: request.fileGuid ?? '',
      fileType: request.fileType,
      downloadUrl: request.downloadUrl ?? '',
    };
    if (request.version !== 2) {
      await this.transport.send({ method: 'POST', path: '/sdk/v2/api/ai/rag/import', json, scope: 'default', ...withUser(user) });
      return {};
    }
    return this.read({ method: 'POST', path: '/sdk/v2/api/ai/rag/v2/import', json, scope: 'default', ...withUser(user) }, Shapes.AiTask);
  }

  aiImportProgress(request: In.TaskRef, user?: PlatformUser): Promise<Shapes.AiProgress> {
    return this.read({ method: 'POST', path: '/sdk/v2/api/ai/rag/v2/import/progress', json: { taskId: request.taskId }, scope: 'default', ...withUser(user) }, Shapes.AiProgress);
  }

  async aiDelete(request: In.AiDelete, user?: PlatformUser): Promise<void> {
    const json = { knowledgeBaseGuid: request.knowledgeBaseGuid, fileGuid: request.fileGuid };
    await this.transport.send({ method: 'DELETE', path: '/sdk/v2/api/ai/rag/delete', json, scope: 'default', ...withUser(user) });
  }

  // The three answer checks every call above goes through.

  private async read<S extends TSchema>(request: PlatformRequest, schema: S): Promise<Static<S>> {
    return this.checked(await this.transport.send(request), schema);
  }

  /** Import and export: HTTP 200 with `status` 0, else a failure even on 200. */
  private async withStatus<S extends TSchema>(request: PlatformRequest, schema: S): Promise<Static<S>> {
    const answer = await this.transport.send(request);
    const body = this.checked(answer, schema) as { status: number };
    if (body.status !== 0) throw reportedFailure(answer.call, answer.status, answer.text, { field: 'status', value: String(body.status) });
    return body as Static<S>;
  }

  private async startTask(request: PlatformRequest): Promise<{ taskId: string }> {
    const body = await this.withStatus(request, Shapes.TaskStarted);
    const taskId = body.data?.taskId;
    if (!taskId) throw unexpectedAnswer(`${request.method} ${request.path}`, 200, JSON.stringify(body), 'no data.taskId');
    return { taskId };
  }

  private checked<S extends TSchema>(answer: PlatformAnswer, schema: S): Static<S> {
    if (answer.body === undefined) throw unexpectedAnswer(answer.call, answer.status, answer.text, 'not JSON');
    const check = checker(schema);
    if (!check.Check(answer.body)) {
      const first = [...check.Errors(answer.body)][0] as { instancePath?: string; message?: string } | undefined;
      throw unexpectedAnswer(answer.call, answer.status, answer.text, `${first?.instancePath || '/'} ${first?.message ?? 'does not match'}`);
    }
    return answer.body as Static<S>;
  }
}

const withUser = (user: PlatformUser | undefined): { user?: PlatformUser } => (user === undefined ? {} : { user });
