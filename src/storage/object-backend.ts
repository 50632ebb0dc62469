import type { Readable } from 'node:stream';
import type { StorageLocation } from '../config/storage.js';

/** Bytes `start` to `end` of an object, both included (as in an HTTP Range). */
export interface ByteRange {
  start: number;
  end: number;
}

/** An object opened for reading: its size, then its bytes (one version of them, even if replaced meanwhile). */
export interface OpenedObject {
  /** The size of the bytes as opened. */
  readonly size: number;
  /** The bytes, or those of `range`; call at most once. */
  stream(range?: ByteRange): Promise<Readable>;
  /** Lets go of what opening took, when the bytes are not streamed. Harmless after `stream`. */
  close(): Promise<void>;
}

export interface PutOptions {
  /** Stored with the object where the back end keeps a media type (S3). */
  contentType: string;
  /** Past this many bytes the put fails with ObjectTooLarge and keeps nothing. */
  maxBytes: number;
}

/** What a put saw of the bytes as they streamed through. */
export interface PutResult {
  size: number;
  /** Hex SHA-256. */
  sha256: string;
  /** The database back end only: the bytes, to be written in the file's row; null for the others. */
  inline: Buffer | null;
}

export interface PresignOptions {
  /** Served as `Content-Disposition` (RFC 5987 `filename*`). */
  fileName: string;
  /** Served as `Content-Type`. */
  contentType: string;
  expiresInSeconds: number;
  /** The signing time, epoch milliseconds. */
  now: number;
}

/**
 * Where the bytes of third-party files are kept, by file id: the database row (`database`), a directory
 * (`fs:DIR`) or an S3-compatible bucket (`s3://BUCKET/PREFIX`). The row of each stored file, with its size,
 * media type and hash, is kept by FileStorage whatever the back end.
 */
export interface ObjectBackend {
  readonly location: StorageLocation;
  /** Streams the body in, counting and hashing it; replaces what the file had. */
  put(fileId: string, body: Readable, options: PutOptions): Promise<PutResult>;
  /** The file's bytes, or undefined when the back end has none for it. */
  open(fileId: string): Promise<OpenedObject | undefined>;
  /** Removes the file's bytes; nothing happens when there are none. */
  delete(fileId: string): Promise<void>;
  /**
   * Every object the back end holds, by its key under DIR or PREFIX (`ab/ab12…`, see objectKey), for
   * `storage orphans`; not for the database back end, whose bytes are rows.
   */
  list?(): AsyncIterable<HeldObject>;
  /** S3 only: a link the store itself serves, signed and expiring. */
  presign?(fileId: string, options: PresignOptions): Promise<string>;
  /** Lets go of connections. */
  close(): Promise<void>;
}

/** An object as listed by a back end. */
export interface HeldObject {
  /** Relative to DIR or PREFIX: `ab/ab12…` (or an upload's temporary file beside it). */
  key: string;
  /** Where it is, for the operator: a path, or an s3:// address. */
  address: string;
  size: number;
  /** Last written, epoch milliseconds. */
  modifiedAt: number;
}

/** The body went past the size limit: nothing of it was kept. */
export class ObjectTooLarge extends Error {
  override name = 'ObjectTooLarge';
  constructor(readonly maxBytes: number) {
    super(`the content is larger than ${maxBytes} bytes`);
  }
}
