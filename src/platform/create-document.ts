import { randomUUID } from 'node:crypto';
import type { StoreDirectory } from '../directory/directory.js';
import { formatTime } from '../directory/time.js';
import type { FileRecord, User } from '../directory/types.js';
import { FILE_TYPES } from '../directory-changes/records.js';
import type { PlatformClient, PlatformUser } from './platform-client.js';
import { PlatformError } from './platform-errors.js';

/** A file row as the document flows write it (the store's `files` table, without the derived fields). */
export type DocumentFile = Omit<FileRecord, 'hasStoredContent' | 'status'>;

/** The writes the document flows need; the store implements it (src/store/platform/document-records.ts). */
export interface DocumentRecords {
  /**
   * Writes the file with status `pending`. false when the id is already taken by a file that is not
   * `failed` (a failed creation's id may be tried again: its row is overwritten).
   */
  reserve(file: DocumentFile): Promise<boolean>;
  /** Sets the file's status. */
  setStatus(fileId: string, status: 'active' | 'failed'): Promise<void>;
  /** Removes a file that never came to exist on the platform (only while not `active`). */
  remove(fileId: string): Promise<void>;
  /** Removes a document whatever its status, with its grants and stored bytes (it was deleted on the platform). */
  removeDocument(fileId: string): Promise<void>;
}

export interface DocumentDeps {
  directory: StoreDirectory;
  records: DocumentRecords;
  /** undefined when PLATFORM_API_URL is not configured. */
  platform: PlatformClient | undefined;
  /** A user's credentials for the platform: their token (sent back on the document's callbacks), and uuid. */
  userFor: (userId: string) => PlatformUser;
  /** `lang` of created documents (PLATFORM_LANG). */
  lang?: 'zh-CN' | 'en' | 'jp';
  now?: () => number;
}

export interface CreateDocumentInput {
  creatorId: string;
  type: string;
  name: string;
  /** Chosen by the caller, or a fresh UUID. */
  fileId?: string;
}

/** Collaborative document kinds collab-host records: the snapshot's types without `file`, which the platform does not edit. */
export const DOCUMENT_TYPES: readonly string[] = FILE_TYPES.filter((type) => type !== 'file');
/** At most 64 characters (the platform's limit); letters, digits, `.`, `_`, `-`, so it is safe in any URL. */
export const FILE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MAX_NAME_LENGTH = 500;

/** A caller mistake in a document request. */
export class DocumentInputError extends Error {
  override name = 'DocumentInputError';
  constructor(
    readonly reason: 'invalid' | 'unknown-user' | 'unknown-file' | 'file-exists' | 'not-allowed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Creates a collaborative document: the file record is written first with status `pending` (never served:
 * callbacks answer 404 for it), then the platform is asked to create the document, then the record is
 * made `active`. See `placeDocument` for what happens when the platform fails.
 */
export async function createDocument(deps: DocumentDeps, input: CreateDocumentInput): Promise<FileRecord> {
  if (!DOCUMENT_TYPES.includes(input.type)) throw new DocumentInputError('invalid', `type must be one of ${DOCUMENT_TYPES.join(', ')}`);
  return placeDocument(deps, input, (platform, fileId, user) => platform.createFile({ fileId, type: input.type, ...(deps.lang ? { lang: deps.lang } : {}) }, user));
}

/** Copies a document on the platform into a new one that `creatorId` owns (default name "<name> (copy)"). */
export async function copyDocument(deps: DocumentDeps, input: { sourceFileId: string; creatorId: string; name?: string; fileId?: string }): Promise<FileRecord> {
  const source = await deps.directory.getFile(input.sourceFileId);
  if (!source || source.status !== 'active') throw new DocumentInputError('unknown-file', `file ${input.sourceFileId} does not exist`);
  if (!DOCUMENT_TYPES.includes(source.type)) throw new DocumentInputError('invalid', `file ${input.sourceFileId} is not a collaborative document`);
  const name = input.name ?? `${source.name} (copy)`.slice(0, MAX_NAME_LENGTH);
  return placeDocument(deps, { creatorId: input.creatorId, type: source.type, name, ...(input.fileId ? { fileId: input.fileId } : {}) }, (platform, fileId, user) =>
    platform.copyFile({ fileId: source.id, newFileId: fileId }, user),
  );
}

/**
 * The one way a new document comes to exist here: checks the input, reserves the record `pending`, runs
 * the platform call, and makes the record `active`. When the platform refuses, the record is removed, so
 * nothing half-created remains; when the outcome is unknown (time-out, network fault) it is kept as
 * `failed`, holding the id: a retry with the same fileId is allowed, and if the platform then answers
 * 70012 (the id exists there) the earlier call did succeed and the document becomes `active`.
 * `keepPending` leaves a successful record `pending` (an import: active when its task finishes).
 */
export async function placeDocument(
  deps: DocumentDeps,
  input: CreateDocumentInput,
  call: (platform: PlatformClient, fileId: string, user: PlatformUser) => Promise<void>,
  options: { keepPending?: boolean } = {},
): Promise<FileRecord> {
  const fileId = input.fileId ?? randomUUID();
  checkInput(input, fileId);
  if (!deps.platform) throw notConfigured();
  const creator = await deps.directory.getUser(input.creatorId);
  if (!creator) throw new DocumentInputError('unknown-user', `user ${input.creatorId} does not exist`);
  if (creator.active === false) throw new DocumentInputError('not-allowed', `user ${input.creatorId} is deactivated`);

  const previous = await deps.directory.getFile(fileId);
  const file = newFile(deps, creator, { id: fileId, name: input.name, type: input.type });
  if (!(await deps.records.reserve(file))) throw new DocumentInputError('file-exists', `a file with id ${fileId} already exists`);

  const status = options.keepPending ? 'pending' : 'active';
  try {
    await call(deps.platform, fileId, deps.userFor(creator.id));
  } catch (error) {
    const retryOfFailed = previous?.status === 'failed';
    if (error instanceof PlatformError && error.failure === 'refused' && error.platformCode === '70012' && retryOfFailed) {
      if (status === 'active') await deps.records.setStatus(fileId, 'active');
      return { ...file, status, hasStoredContent: false };
    }
    if (error instanceof PlatformError && (error.failure === 'refused' || error.failure === 'failed')) await deps.records.remove(fileId);
    else await deps.records.setStatus(fileId, 'failed');
    throw error;
  }
  if (status === 'active') await deps.records.setStatus(fileId, 'active');
  return { ...file, status, hasStoredContent: false };
}

/** A new file row owned by `creator`, created now. */
export function newFile(deps: Pick<DocumentDeps, 'now'>, creator: User, fields: Pick<DocumentFile, 'id' | 'name' | 'type'> & Partial<DocumentFile>): DocumentFile {
  const now = formatTime((deps.now ?? Date.now)());
  return {
    creatorId: creator.id,
    teamId: creator.teamId,
    createdAt: now,
    updatedAt: now,
    views: null,
    ext: null,
    downloadUrl: null,
    fullUrl: null,
    restrictions: { copy: true, export: true },
    ...fields,
  };
}

export function notConfigured(): PlatformError {
  return new PlatformError('not-configured', 'PLATFORM_API_URL is not set: collab-host cannot call the platform');
}

function checkInput(input: CreateDocumentInput, fileId: string): void {
  if (!FILE_ID_PATTERN.test(fileId)) {
    throw new DocumentInputError('invalid', 'fileId must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  const name = input.name.trim();
  if (name === '' || input.name.length > MAX_NAME_LENGTH) {
    throw new DocumentInputError('invalid', `name must be 1 to ${MAX_NAME_LENGTH} characters`);
  }
}
