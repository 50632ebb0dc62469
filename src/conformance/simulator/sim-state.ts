import { isRecord } from '../jwt.js';
import { badParameters, refuse, SIMULATOR_ERRORS, type Caller, type SimAnswer, type SimRequest } from './sim-auth.js';

/** The collaborative document types of the platform's kit (`file` is the integrator's own, never created here). */
export const DOCUMENT_TYPES = ['documentPro', 'document', 'spreadsheet', 'presentation', 'table'] as const;
/** Longest fileId accepted. */
export const MAX_FILE_ID_LENGTH = 64;
/** Import source extensions and export formats per type (the kit's tables). */
export const IMPORT_EXTENSIONS: Record<string, readonly string[]> = {
  document: ['docx', 'doc', 'md', 'txt'],
  documentPro: ['docx', 'doc', 'wps'],
  spreadsheet: ['xlsx', 'xls', 'csv', 'xlsm'],
  presentation: ['pptx', 'ppt'],
};
export const EXPORT_FORMATS: Record<string, readonly string[]> = {
  document: ['docx', 'md', 'jpg', 'pdf'],
  documentPro: ['docx', 'pdf', 'wps'],
  spreadsheet: ['xlsx'],
  presentation: ['pptx', 'pdf'],
};

export interface SimulatedFile {
  fileId: string;
  type: string;
  /** The integrator token given at creation: the platform sends it back on the document's callbacks. */
  token: string;
  createdAt: string;
  /** The document's text (plain text, word count, exports). */
  text: string;
  comments: number;
  mentions: Array<{ userId: string; atGuid: string }>;
  history: Array<{ id: string; name: string; content: string; createdAt: string; updateAt: string; historyType: number; userId: string }>;
  revisions: Array<{ id: number; label: string; title: string; docHistoryId: string; createdAt: string; updatedAt: string; user: { id: string; name: string } }>;
  /** Spreadsheets: sheet name -> rows. */
  sheets: Map<string, unknown[][]>;
  /** documentPro: bookmark -> text. */
  bookmarks: Map<string, string>;
}

/** An import, export or knowledge-base task: each progress poll moves it on by `step`. */
export interface SimulatedTask {
  kind: 'import' | 'export' | 'ai';
  progress: number;
  fileId: string;
  /** import: the target type and the file's name; export: the format. */
  type?: string;
  fileName?: string;
  format?: string;
  token: string;
}

/** What one route does: the call's answer, given its path parameters and the caller. */
export type RouteHandler = (request: SimRequest, params: string[], caller: Caller) => SimAnswer;

export interface SimRoute {
  method: string;
  /** Matched against the whole path; groups are the (decoded) parameters. */
  pattern: RegExp;
  scope: 'default' | 'license';
  handle: RouteHandler;
}

export const NO_CONTENT: SimAnswer = { status: 204 };
export const ok = (body: unknown): SimAnswer => ({ status: 200, body });
export function missingFile(fileId: string): never {
  return refuse(SIMULATOR_ERRORS.fileMissing, `file "${fileId}" does not exist`);
}

/** `YYYY-MM-DDThh:mm:ssZ` of a time in milliseconds. */
export const isoTime = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The JSON body as an object, or the 70001 answer saying what it must be. */
export function objectBody(request: SimRequest, shape: string): Record<string, unknown> {
  return isRecord(request.json) ? request.json : badParameters(`the body must be JSON ${shape}`);
}

/** A fileId the platform accepts: a string of 1 to 64 characters. */
export function checkFileId(fileId: unknown): string {
  if (typeof fileId !== 'string' || fileId === '' || fileId.length > MAX_FILE_ID_LENGTH) {
    return badParameters(`fileId must be a string of 1 to ${MAX_FILE_ID_LENGTH} characters`);
  }
  return fileId;
}

/** A list of user ids: a non-empty array of non-empty strings. */
export function userIdsOf(body: Record<string, unknown>): string[] {
  const { userIds } = body;
  if (!Array.isArray(userIds) || userIds.length === 0 || !userIds.every((id) => typeof id === 'string' && id !== '')) {
    return badParameters('userIds must be a non-empty array of user ids');
  }
  return userIds as string[];
}

/** The application as the platform knows it (app details, the callback address, the licence). */
export interface SimulatedApp {
  appName: string;
  endpointUrl: string | undefined;
  memberLimit: number;
  validFrom: string;
  validUntil: string;
}

/** The platform's memory: documents, tasks, seats, previews, uploads and the downloads it serves. */
export class SimulatedWorld {
  readonly files = new Map<string, SimulatedFile>();
  readonly tasks = new Map<string, SimulatedTask>();
  /** userId -> seat status (1 activated, 0 disabled, -1 never enabled) and when the row appeared. */
  readonly seats = new Map<string, { status: number; createdAt: string }>();
  readonly previews = new Set<string>();
  /** Upload access tokens handed out, with what they are for. */
  readonly uploadTokens = new Map<string, { filename: string; bucket: string; guid: string }>();
  /** Knowledge bases: guid -> file guids. */
  readonly knowledgeBases = new Map<string, Set<string>>();
  /** Bytes served at `/simulator/downloads/{id}` (exports). */
  readonly downloads = new Map<string, { bytes: Buffer; contentType: string }>();
  /** This simulator's own address, for download URLs (set once it listens). */
  baseUrl = '';
  private counter = 0;

  constructor(
    readonly app: SimulatedApp,
    readonly now: () => number,
    /** How far each progress poll moves a task (percent). */
    readonly step = 50,
  ) {}

  nextId(prefix: string): string {
    this.counter += 1;
    return `${prefix}-${this.counter.toString(36)}-${Math.floor(this.now()).toString(36)}`;
  }

  /** A new document with the content the simulator starts every document with. */
  addFile(fileId: string, type: string, token: string, text = ''): SimulatedFile {
    const createdAt = isoTime(this.now());
    const file: SimulatedFile = {
      fileId,
      type,
      token,
      createdAt,
      text,
      comments: 0,
      mentions: [],
      history: [{ id: this.nextId('h'), name: 'created', content: 'document created', createdAt, updateAt: createdAt, historyType: 2, userId: '' }],
      revisions: [],
      sheets: new Map(type === 'spreadsheet' || type === 'table' ? [['Sheet1', []]] : []),
      bookmarks: new Map(),
    };
    this.files.set(fileId, file);
    return file;
  }

  file(fileId: string): SimulatedFile {
    return this.files.get(fileId) ?? missingFile(fileId);
  }

  /** Moves a task on by one poll and returns it. */
  advance(taskId: string, kind: SimulatedTask['kind']): SimulatedTask {
    const task = this.tasks.get(taskId);
    if (!task || task.kind !== kind) return badParameters(`no ${kind} task "${taskId}"`);
    task.progress = Math.min(100, task.progress + this.step);
    return task;
  }
}
