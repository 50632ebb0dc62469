import { PassThrough, type Readable } from 'node:stream';
import type { DownloadLinks } from '../auth/download-link.js';
import { formatTime } from '../directory/time.js';
import { storedContentType } from './content-type.js';
import { DatabaseBackend } from './database-backend.js';
import { downloadName } from './download-name.js';
import type { FileObject, FileObjectRows } from './file-object-rows.js';
import { ObjectTooLarge, type ObjectBackend, type OpenedObject } from './object-backend.js';

/** What `put` answers. */
export type PutOutcome = { ok: true; object: FileObject; created: boolean; updatedAt: string } | { ok: false; reason: 'no_file' | 'not_a_file' | 'too_large' };

/** What `remove` answers. */
export type RemoveOutcome = { ok: true; object: FileObject } | { ok: false; reason: 'no_file' | 'not_a_file' | 'no_content' };

/** A stored file opened for serving: what was recorded, and the bytes. */
export interface OpenedContent {
  object: Pick<FileObject, 'contentType' | 'sha256'>;
  bytes: OpenedObject;
}

/** What the download route and the file callbacks need: a link to a file's bytes, and the bytes. */
export interface StoredContentSource {
  /** The `downloadUrl` of a file whose bytes collab-host holds: presigned on S3, else a signed collab-host link. */
  downloadUrl(file: { id: string; name: string; ext: string | null }, now?: number): Promise<string>;
  /** The file's bytes, or undefined when none are held (or they cannot be found where the row says). */
  open(fileId: string): Promise<OpenedContent | undefined>;
}

export interface FileStorageOptions {
  /** The largest body `put` accepts (FILE_MAX_SIZE). */
  maxUploadBytes: number;
  /** Lifetime of a presigned link (S3_PRESIGN_TTL). */
  presignTtlSeconds: number;
  /** The clock (tests); defaults to Date.now. */
  now?: () => number;
  /** Told about rows whose bytes cannot be found (a back end switched without `storage migrate`). */
  warn?: (details: Record<string, unknown>, message: string) => void;
}

/**
 * The bytes of third-party files (`type: file`): the one way they are written, read, linked and removed.
 * Every stored file has its row (size, media type, SHA-256); the bytes are in the row itself
 * (`inDatabase`) or in the configured back end. Writes go to the configured back end. A row that still
 * holds its bytes (written before a switch of FILE_STORAGE, or by a snapshot import) is served from the
 * database until `storage migrate` moves it.
 */
export class FileStorage implements StoredContentSource {
  /** Reads rows that hold their own bytes, whatever the configured back end. */
  private readonly inDatabase: ObjectBackend;
  private readonly now: () => number;

  constructor(
    readonly rows: FileObjectRows,
    /** The configured back end (FILE_STORAGE). */
    readonly backend: ObjectBackend,
    private readonly links: DownloadLinks,
    private readonly options: FileStorageOptions,
  ) {
    this.inDatabase = backend.location.kind === 'database' ? backend : new DatabaseBackend(rows);
    this.now = options.now ?? Date.now;
  }

  get maxUploadBytes(): number {
    return this.options.maxUploadBytes;
  }

  /**
   * Stores `body` as the bytes of file `fileId` (replacing any), recording size, media type and SHA-256,
   * and sets the file's `updatedAt`. Only for files of type `file`. Without a `contentType` (or with the
   * generic `application/octet-stream`) the type follows the file's extension. `declaredSize` (a
   * Content-Length) past the limit is refused before anything is read; a body that runs past it is cut
   * off and nothing is kept.
   */
  async put(fileId: string, body: Readable, meta: { contentType?: string; declaredSize?: number }): Promise<PutOutcome> {
    const file = await this.rows.describeFile(fileId);
    if (file === undefined) return { ok: false, reason: 'no_file' };
    if (file.type !== 'file') return { ok: false, reason: 'not_a_file' };
    if (meta.declaredSize !== undefined && meta.declaredSize > this.options.maxUploadBytes) return { ok: false, reason: 'too_large' };
    const contentType = storedContentType(meta.contentType, file.ext, file.name);

    let written;
    try {
      written = await this.backend.put(fileId, detached(body), { contentType, maxBytes: this.options.maxUploadBytes });
    } catch (error) {
      if (error instanceof ObjectTooLarge) return { ok: false, reason: 'too_large' };
      throw error;
    }
    const object = { fileId, contentType, size: written.size, sha256: written.sha256 };
    const updatedAt = formatTime(this.now());
    const saved = await this.rows.save(object, written.inline, updatedAt);
    if (saved === 'no_file') {
      // The file was deleted (or retyped) while its bytes streamed in: keep nothing.
      if (written.inline === null) await this.backend.delete(fileId);
      return { ok: false, reason: 'no_file' };
    }
    return { ok: true, object: { ...object, inDatabase: written.inline !== null }, created: saved === 'created', updatedAt };
  }

  /** Removes the file's bytes and row, and sets its `updatedAt`. */
  async remove(fileId: string): Promise<RemoveOutcome> {
    const file = await this.rows.describeFile(fileId);
    if (file === undefined) return { ok: false, reason: 'no_file' };
    if (file.type !== 'file') return { ok: false, reason: 'not_a_file' };
    const removed = await this.rows.remove(fileId, formatTime(this.now()));
    if (!removed) return { ok: false, reason: 'no_content' };
    // Row first, bytes second: a failure in between leaves unreachable bytes, never a row without them.
    if (!removed.inDatabase) await this.backend.delete(fileId);
    return { ok: true, object: removed };
  }

  async downloadUrl(file: { id: string; name: string; ext: string | null }, now: number = this.now()): Promise<string> {
    if (this.backend.presign) {
      const object = await this.rows.get(file.id);
      if (object && !object.inDatabase) {
        return this.backend.presign(file.id, {
          fileName: downloadName(file),
          contentType: object.contentType,
          expiresInSeconds: this.options.presignTtlSeconds,
          now,
        });
      }
    }
    return this.links.linkFor(file.id, now);
  }

  async open(fileId: string): Promise<OpenedContent | undefined> {
    const object = await this.rows.get(fileId);
    if (!object) return undefined;
    const holder = this.holderOf(object);
    const bytes = holder && (await holder.open(fileId));
    if (!bytes) {
      this.options.warn?.(
        { fileId, storage: this.backend.location.kind, inDatabase: object.inDatabase },
        'stored file has a row but its bytes are not where it says; was FILE_STORAGE changed without `collab-host storage migrate`?',
      );
      return undefined;
    }
    return { object, bytes };
  }

  /** Where a row's bytes are: the row itself, or the configured back end (none when that is the database). */
  holderOf(object: FileObject): ObjectBackend | undefined {
    if (object.inDatabase) return this.inDatabase;
    return this.backend.location.kind === 'database' ? undefined : this.backend;
  }

  async close(): Promise<void> {
    await this.backend.close();
  }
}

/**
 * The body behind a pass-through: a back end that gives up (size limit, store failure) destroys the
 * pass-through, never the request itself, whose socket must stay open to carry the refusal.
 */
function detached(body: Readable): Readable {
  const through = new PassThrough();
  body.on('error', (error) => through.destroy(error));
  return body.pipe(through);
}
