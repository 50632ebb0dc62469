import type { Generated } from 'kysely';

/**
 * Columns the file storage adds to `file_contents` (declared in schema.ts with the directory): the row of
 * every stored file, whatever back end holds its bytes (`hasStoredContent` and the hot reads join it).
 */
export interface StorageTables {
  file_contents: {
    /** Hex SHA-256 of the bytes, recorded on every write (migration 030 filled it for older rows). */
    sha256: Generated<string>;
    /**
     * 1: the bytes are in this row's `content`. 0: they are in the configured back end (FILE_STORAGE,
     * a directory or an S3 bucket) and `content` is empty.
     */
    in_database: Generated<number>;
  };
}
