/**
 * The port through which the file storage keeps its rows (implemented in src/store/files/file-objects.ts):
 * one row per stored file, whatever back end holds the bytes, with what was recorded when they were
 * written. The database back end keeps the bytes in that same row.
 */

/** What is recorded of a stored file's bytes. */
export interface FileObject {
  fileId: string;
  /** The media type given on upload (or derived from the file's extension). */
  contentType: string;
  /** Bytes. */
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
  /** true: the bytes are in the database row; false: in the configured back end (a directory or a bucket). */
  inDatabase: boolean;
}

export type SaveOutcome = 'created' | 'replaced' | 'no_file';

export interface FileObjectRows {
  /** The type (`file`, `document`, …), name and extension of the file with this id; undefined when there is none. */
  describeFile(fileId: string): Promise<{ type: string; name: string; ext: string | null } | undefined>;
  /** The row of the file's stored bytes, or undefined when it has none. */
  get(fileId: string): Promise<FileObject | undefined>;
  /** Rows in file id order, after `after` (exclusive), at most `limit`: every stored file, page by page. */
  list(options: { after?: string; limit: number }): Promise<FileObject[]>;
  /** How many files have stored bytes, and their bytes together (a migration's progress total). */
  totals(): Promise<{ files: number; bytes: number }>;
  /** The bytes of a row that holds them (`inDatabase`); undefined otherwise. */
  readInline(fileId: string): Promise<Buffer | undefined>;
  /**
   * Records the file's bytes (with `inline` the bytes themselves, in the row; null: they are in the back
   * end) and sets the file's `updatedAt`, in one transaction. `no_file` when the file is gone or is not
   * of type `file` by then: nothing is written.
   */
  save(object: Omit<FileObject, 'inDatabase'>, inline: Buffer | null, updatedAt: string): Promise<SaveOutcome>;
  /** Removes the row and sets the file's `updatedAt`; returns what it recorded, or undefined when there was none. */
  remove(fileId: string, updatedAt: string): Promise<FileObject | undefined>;
  /**
   * Hands the bytes over to where they now are (storage migrate): with `inline`, into the row; with null,
   * to the back end (the row's bytes are dropped). Only while the row still records `sha256`: false when
   * the file was written again meanwhile (or removed), and then nothing changes.
   */
  moveBytes(fileId: string, sha256: string, inline: Buffer | null): Promise<boolean>;
}
