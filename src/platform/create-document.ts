import { randomUUID } from 'node:crypto';
import type { Directory } from '../directory/directory.js';
import { formatTime } from '../directory/time.js';
import type { FileRecord } from '../directory/types.js';
import { FILE_TYPES } from '../snapshot/records.js';
import type { PlatformApi } from './platform-client.js';
import { PlatformError } from './platform-errors.js';

/** The writes the create-document flow needs; the store implements it (src/store/document-records.ts). */
export interface DocumentRecords {
  /**
   * Writes the file with status `pending`. false when the id is already taken by a file that is not
   * `failed` (a failed creation's id may be tried again: its row is overwritten).
   */
  reserve(file: Omit<FileRecord, 'hasStoredContent' | 'status'>): Promise<boolean>;
  /** Sets the file's status. */
  setStatus(fileId: string, status: 'active' | 'failed'): Promise<void>;
  /** Removes a file that never came to exist on the platform. */
  remove(fileId: string): Promise<void>;
}

export interface CreateDocumentDeps {
  directory: Directory;
  records: DocumentRecords;
  /** undefined when PLATFORM_API_URL is not configured. */
  platform: PlatformApi | undefined;
  /** The creator's user token, which the platform sends back on the document's callbacks. */
  tokenFor: (userId: string) => string;
  now?: () => number;
}

export interface CreateDocumentInput {
  creatorId: string;
  type: string;
  name: string;
  /** Chosen by the caller, or a fresh UUID. */
  fileId?: string;
}

/** Collaborative document kinds: the snapshot's types without `file`, which the platform does not edit. */
export const DOCUMENT_TYPES: readonly string[] = FILE_TYPES.filter((type) => type !== 'file');
/** At most 64 characters (the platform's limit); letters, digits, `.`, `_`, `-`, so it is safe in any URL. */
export const FILE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const MAX_NAME_LENGTH = 500;

/** A caller mistake in the create-document request: `field` names what was wrong. */
export class DocumentInputError extends Error {
  override name = 'DocumentInputError';
  constructor(
    readonly reason: 'invalid' | 'unknown-user' | 'file-exists',
    message: string,
  ) {
    super(message);
  }
}

/**
 * Creates a collaborative document: the file record is written first with status `pending` (never served:
 * callbacks answer 404 for it), then the platform is asked to create the document, then the record is
 * made `active`. When the platform refuses, the record is removed, so nothing half-created remains; when
 * the outcome is unknown (time-out, network fault) it is kept as `failed`, holding the id: a retry with the
 * same fileId is allowed, and if the platform then answers 70012 (the id exists there) the earlier call
 * did succeed and the document becomes `active`.
 */
export async function createDocument(deps: CreateDocumentDeps, input: CreateDocumentInput): Promise<FileRecord> {
  const fileId = input.fileId ?? randomUUID();
  checkInput(input, fileId);
  if (!deps.platform) throw new PlatformError('not-configured', 'PLATFORM_API_URL is not set: collab-host cannot create documents on the platform');
  const creator = await deps.directory.getUser(input.creatorId);
  if (!creator) throw new DocumentInputError('unknown-user', `user ${input.creatorId} does not exist`);

  const previous = await deps.directory.getFile(fileId);
  const now = formatTime((deps.now ?? Date.now)());
  const file = {
    id: fileId,
    name: input.name,
    type: input.type,
    creatorId: creator.id,
    teamId: creator.teamId,
    createdAt: now,
    updatedAt: now,
    views: null,
    ext: null,
    downloadUrl: null,
    fullUrl: null,
    restrictions: { copy: true, export: true },
  };
  if (!(await deps.records.reserve(file))) throw new DocumentInputError('file-exists', `a file with id ${fileId} already exists`);

  try {
    await deps.platform.createDocument({ fileId, type: input.type, token: deps.tokenFor(creator.id) });
  } catch (error) {
    const retryOfFailed = previous?.status === 'failed';
    if (error instanceof PlatformError && error.failure === 'refused' && error.platformCode === '70012' && retryOfFailed) {
      await deps.records.setStatus(fileId, 'active');
      return { ...file, status: 'active', hasStoredContent: false };
    }
    if (error instanceof PlatformError && error.failure === 'refused') await deps.records.remove(fileId);
    else await deps.records.setStatus(fileId, 'failed');
    throw error;
  }
  await deps.records.setStatus(fileId, 'active');
  return { ...file, status: 'active', hasStoredContent: false };
}

function checkInput(input: CreateDocumentInput, fileId: string): void {
  if (!DOCUMENT_TYPES.includes(input.type)) {
    throw new DocumentInputError('invalid', `type must be one of ${DOCUMENT_TYPES.join(', ')}`);
  }
  if (!FILE_ID_PATTERN.test(fileId)) {
    throw new DocumentInputError('invalid', 'fileId must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit');
  }
  const name = input.name.trim();
  if (name === '' || input.name.length > MAX_NAME_LENGTH) {
    throw new DocumentInputError('invalid', `name must be 1 to ${MAX_NAME_LENGTH} characters`);
  }
}
