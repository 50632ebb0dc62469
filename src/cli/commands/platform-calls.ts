import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import type { PlatformClient, PlatformUser } from '../../platform/platform-client.js';
import { CREATE_LANGS, UPLOAD_BUCKETS, type CreateLang } from '../../platform/platform-requests.js';
import { SEAT_STATUSES, type SeatStatus } from '../../platform/platform-shapes.js';
import { usageError } from '../command-args.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | string[] | undefined>;

/** What a call runs with: its parsed options, the client, and a user's credentials. */
export interface CallContext {
  values: Values;
  positionals: string[];
  client: PlatformClient;
  userFor: (userId: string) => PlatformUser;
  /** The usage of this call, for usage errors. */
  usage: string;
}

/** One `collab-host platform <call>`: its usage line, options, and what it does; `done` says what a write did. */
export interface PlatformCall {
  name: string;
  usage: string;
  options: Options;
  positionals?: { min: number; max: number };
  run(context: CallContext): Promise<unknown>;
  done?: (context: CallContext) => string;
}

const str = { type: 'string' } as const;
const many = { type: 'string', multiple: true } as const;
const flag = { type: 'boolean' } as const;

/** A required option's value, or a usage error naming it. */
export function need(context: CallContext, name: string): string {
  const value = context.values[name];
  if (typeof value !== 'string' || value === '') throw usageError(`--${name} is required`, context.usage);
  return value;
}

function whole(context: CallContext, name: string, fallback?: number): number | undefined {
  const value = context.values[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^-?\d+$/.test(value)) throw usageError(`--${name} must be a whole number`, context.usage);
  return Number(value);
}

function json(context: CallContext, name: string): unknown[][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(need(context, name));
  } catch {
    throw usageError(`--${name} must be JSON, e.g. '[["a",1]]'`, context.usage);
  }
  if (!Array.isArray(parsed) || !parsed.every(Array.isArray)) throw usageError(`--${name} must be a JSON array of rows`, context.usage);
  return parsed as unknown[][];
}

const user = (context: CallContext): PlatformUser | undefined => (typeof context.values.user === 'string' ? context.userFor(context.values.user) : undefined);
const requiredUser = (context: CallContext): PlatformUser => context.userFor(need(context, 'user'));
const fileId = (context: CallContext) => ({ fileId: need(context, 'file-id') });
const version = (context: CallContext): 1 | 2 => (context.values.v2 ? 2 : 1);
const read = (name: string, usage: string, run: (c: CallContext) => Promise<unknown>): PlatformCall => ({
  name,
  usage: `${name} --file-id F [--user U]${usage}`,
  options: { 'file-id': str, user: str },
  run,
});

/** Every call of the platform API (platform-api.md section 3), by its command name. */
export const PLATFORM_CALLS: readonly PlatformCall[] = [
  {
    name: 'create',
    usage: 'create --file-id F --type T --user U [--lang zh-CN|en|jp] [--content-key K]   (the platform call only; create-doc also records the file)',
    options: { 'file-id': str, type: str, user: str, lang: str, 'content-key': str },
    run(c) {
      const lang = c.values.lang as string | undefined;
      if (lang !== undefined && !(CREATE_LANGS as readonly string[]).includes(lang)) throw usageError(`--lang must be one of ${CREATE_LANGS.join(', ')}`, c.usage);
      const contentKey = c.values['content-key'] as string | undefined;
      return c.client.createFile({ ...fileId(c), type: need(c, 'type'), ...(lang ? { lang: lang as CreateLang } : {}), ...(contentKey ? { contentKey } : {}) }, requiredUser(c));
    },
    done: (c) => `created ${String(c.values['file-id'])}`,
  },
  {
    name: 'copy',
    usage: 'copy --file-id F --to NEW --user U',
    options: { 'file-id': str, to: str, user: str },
    run: (c) => c.client.copyFile({ ...fileId(c), newFileId: need(c, 'to') }, requiredUser(c)),
    done: (c) => `copied ${String(c.values['file-id'])} to ${String(c.values.to)}`,
  },
  { ...read('delete', '', (c) => c.client.deleteFile(fileId(c), user(c))), done: (c) => `deleted ${String(c.values['file-id'])}` },
  {
    name: 'history',
    usage: 'history --file-id F [--page-size 20] [--offset 0] [--type 1|2] [--user U]   (1 operation history, 2 edit history)',
    options: { 'file-id': str, user: str, 'page-size': str, offset: str, type: str },
    run(c) {
      const historyType = whole(c, 'type', 2);
      if (historyType !== 1 && historyType !== 2) throw usageError('--type must be 1 or 2', c.usage);
      return c.client.history({ ...fileId(c), pageSize: whole(c, 'page-size', 20)!, count: whole(c, 'offset', 0)!, historyType }, user(c));
    },
  },
  read('revisions', '', (c) => c.client.revisions(fileId(c), user(c))),
  read('plain-text', '', (c) => c.client.plainText(fileId(c), user(c))),
  read('word-count', '', (c) => c.client.wordCount(fileId(c), user(c))),
  read('mentions', '', (c) => c.client.mentions(fileId(c), user(c))),
  read('comment-count', '', (c) => c.client.commentCount(fileId(c), user(c))),
  {
    name: 'import',
    usage: 'import --file-id F --type T (--file-url URL | --file PATH) [--file-name N] [--v2] --user U',
    options: { 'file-id': str, type: str, 'file-url': str, file: str, 'file-name': str, v2: flag, user: str },
    async run(c) {
      const path = c.values.file as string | undefined;
      const fileUrl = c.values['file-url'] as string | undefined;
      if ((path === undefined) === (fileUrl === undefined)) throw usageError('give --file-url or --file (one of them)', c.usage);
      if (path !== undefined && c.values.v2) throw usageError('--file is for import v1; v2 takes --file-url only', c.usage);
      const fileName = (c.values['file-name'] as string | undefined) ?? basename(path ?? new URL(fileUrl!).pathname);
      const file = path === undefined ? undefined : { name: basename(path), bytes: await readFile(path) };
      return c.client.importFile(
        { ...fileId(c), type: need(c, 'type'), fileName, ...(fileUrl ? { fileUrl } : {}), ...(file ? { file } : {}), version: version(c) },
        requiredUser(c),
      );
    },
  },
  {
    name: 'import-progress',
    usage: 'import-progress --task T [--v2]',
    options: { task: str, v2: flag },
    run: (c) => c.client.importProgress({ taskId: need(c, 'task'), version: version(c) }),
  },
  {
    name: 'export',
    usage: 'export --file-id F --format docx|md|jpg|pdf|wps|xlsx|pptx [--user U]',
    options: { 'file-id': str, format: str, user: str },
    run: (c) => c.client.exportFile({ ...fileId(c), format: need(c, 'format') }, user(c)),
  },
  { name: 'export-progress', usage: 'export-progress --task T', options: { task: str }, run: (c) => c.client.exportProgress({ taskId: need(c, 'task') }) },
  read('export-table', '   (an application table to .xlsx)', (c) => c.client.exportTableSheets(fileId(c), user(c))),
  {
    name: 'cells-get',
    usage: 'cells-get --file-id F --range Sheet1!A1:C3',
    options: { 'file-id': str, range: str },
    run: (c) => c.client.readCells({ ...fileId(c), range: need(c, 'range') }),
  },
  {
    name: 'cells-update',
    usage: `cells-update --file-id F --range Sheet1!A1 --values '[["a",1]]'`,
    options: { 'file-id': str, range: str, values: str },
    run: (c) => c.client.updateCells({ ...fileId(c), range: need(c, 'range'), values: json(c, 'values') }),
    done: (c) => `updated ${String(c.values.range)}`,
  },
  {
    name: 'cells-append',
    usage: `cells-append --file-id F --range Sheet1!A1 --values '[["a",1]]'`,
    options: { 'file-id': str, range: str, values: str },
    run: (c) => c.client.appendCells({ ...fileId(c), range: need(c, 'range'), values: json(c, 'values') }),
    done: (c) => `appended to ${String(c.values.range)}`,
  },
  {
    name: 'rows-delete',
    usage: 'rows-delete --file-id F --sheet S --index N [--count 1]',
    options: { 'file-id': str, sheet: str, index: str, count: str },
    run: (c) => c.client.deleteRows({ ...fileId(c), sheetName: need(c, 'sheet'), index: whole(c, 'index') ?? Number(need(c, 'index')), count: whole(c, 'count', 1)! }),
    done: (c) => `deleted rows of ${String(c.values.sheet)}`,
  },
  {
    name: 'sheet-add',
    usage: 'sheet-add --file-id F --name N',
    options: { 'file-id': str, name: str },
    run: (c) => c.client.addSheet({ ...fileId(c), name: need(c, 'name') }),
    done: (c) => `added sheet ${String(c.values.name)}`,
  },
  {
    name: 'bookmarks-get',
    usage: 'bookmarks-get --file-id F --bookmark B [--bookmark B…]',
    options: { 'file-id': str, bookmark: many },
    run: (c) => c.client.readBookmarks({ ...fileId(c), bookmarks: (c.values.bookmark as string[] | undefined) ?? [need(c, 'bookmark')] }),
  },
  {
    name: 'bookmarks-replace',
    usage: 'bookmarks-replace --file-id F --set B=TEXT [--set B=TEXT…]',
    options: { 'file-id': str, set: many },
    run(c) {
      const pairs = (c.values.set as string[] | undefined) ?? [];
      if (pairs.length === 0 || !pairs.every((pair) => pair.includes('='))) throw usageError('--set BOOKMARK=TEXT is required (repeat it for more)', c.usage);
      return c.client.replaceBookmarks({
        ...fileId(c),
        replacements: pairs.map((pair) => ({ bookmark: pair.slice(0, pair.indexOf('=')), value: pair.slice(pair.indexOf('=') + 1) })),
      });
    },
    done: () => 'bookmarks replaced',
  },
  read('preview-create', '   (a third-party file)', (c) => c.client.createPreview(fileId(c), user(c))),
  read('preview-page', '', (c) => c.client.previewPage(fileId(c), user(c))),
  {
    name: 'upload-token',
    usage: `upload-token --bucket ${UPLOAD_BUCKETS.join('|')} --file-name N --file-guid G --file-size BYTES [--encrypt]`,
    options: { bucket: str, 'file-name': str, 'file-guid': str, 'file-size': str, encrypt: flag },
    run(c) {
      const bucket = need(c, 'bucket');
      if (!(UPLOAD_BUCKETS as readonly string[]).includes(bucket)) throw usageError(`--bucket must be one of ${UPLOAD_BUCKETS.join(', ')}`, c.usage);
      const file = {
        bucket: bucket as (typeof UPLOAD_BUCKETS)[number],
        filename: need(c, 'file-name'),
        fileGuid: need(c, 'file-guid'),
        fileSize: whole(c, 'file-size') ?? 0,
        encrypt: c.values.encrypt ? ('default' as const) : ('' as const),
      };
      return c.client.uploadToken({ files: [file] });
    },
  },
  {
    name: 'upload',
    usage: 'upload --access-token T --file PATH [--download D…]',
    options: { 'access-token': str, file: str, download: many },
    async run(c) {
      const path = need(c, 'file');
      return c.client.upload({
        accessToken: need(c, 'access-token'),
        download: (c.values.download as string[] | undefined) ?? [],
        file: { name: basename(path), bytes: await readFile(path) },
      });
    },
  },
  { name: 'app', usage: 'app', options: {}, run: (c) => c.client.appDetails() },
  {
    name: 'callback-url',
    usage: 'callback-url --url https://…',
    options: { url: str },
    run: (c) => c.client.updateCallbackUrl({ url: need(c, 'url') }),
    done: (c) => `callback URL set to ${String(c.values.url)}`,
  },
  {
    name: 'seats list',
    usage: 'seats list [--page 1] [--size 100]',
    options: { page: str, size: str },
    run: (c) => c.client.listSeats({ page: whole(c, 'page', 1)!, size: whole(c, 'size', 100)! }),
  },
  {
    name: 'seats activate',
    usage: 'seats activate USER_ID…',
    options: {},
    positionals: { min: 1, max: 1000 },
    run: (c) => c.client.activateSeats(c.positionals),
    done: (c) => `activated ${c.positionals.length} seats`,
  },
  {
    name: 'seats deactivate',
    usage: 'seats deactivate USER_ID…',
    options: {},
    positionals: { min: 1, max: 1000 },
    run: (c) => c.client.deactivateSeats(c.positionals),
    done: (c) => `deactivated ${c.positionals.length} seats`,
  },
  {
    name: 'seats status',
    usage: 'seats status --status 1|0|-1 USER_ID…   (1 activated, 0 disabled, -1 not enabled)',
    options: { status: str },
    positionals: { min: 1, max: 1000 },
    run(c) {
      const status = whole(c, 'status');
      if (status === undefined || !(SEAT_STATUSES as readonly number[]).includes(status)) throw usageError('--status must be 1, 0 or -1', c.usage);
      return c.client.setSeatStatus(c.positionals, status as SeatStatus);
    },
    done: (c) => `set ${c.positionals.length} seats to ${String(c.values.status)}`,
  },
  {
    name: 'ai-import',
    usage: 'ai-import --kb GUID --import-type file|url (--file-guid G | --download-url URL) --file-type T [--v2]',
    options: { kb: str, 'import-type': str, 'file-guid': str, 'download-url': str, 'file-type': str, v2: flag },
    run(c) {
      const importType = need(c, 'import-type');
      if (importType !== 'file' && importType !== 'url') throw usageError('--import-type must be file or url', c.usage);
      const fileGuid = c.values['file-guid'] as string | undefined;
      const downloadUrl = c.values['download-url'] as string | undefined;
      return c.client.aiImport({
        knowledgeBaseGuid: need(c, 'kb'),
        importType,
        fileType: need(c, 'file-type'),
        ...(fileGuid ? { fileGuid } : {}),
        ...(downloadUrl ? { downloadUrl } : {}),
        version: version(c),
      });
    },
  },
  { name: 'ai-progress', usage: 'ai-progress --task T', options: { task: str }, run: (c) => c.client.aiImportProgress({ taskId: need(c, 'task') }) },
  {
    name: 'ai-delete',
    usage: 'ai-delete --kb GUID --file-guid G',
    options: { kb: str, 'file-guid': str },
    run: (c) => c.client.aiDelete({ knowledgeBaseGuid: need(c, 'kb'), fileGuid: need(c, 'file-guid') }),
    done: () => 'removed from the knowledge base',
  },
];
