import { DownloadLinks } from '../auth/download-link.js';
import type { S3Settings, StorageConfig, StorageLocation } from '../config/storage.js';
import { DatabaseBackend } from './database-backend.js';
import type { FileObjectRows } from './file-object-rows.js';
import { FileStorage, type FileStorageOptions } from './file-storage.js';
import { FsBackend } from './fs-backend.js';
import type { ObjectBackend } from './object-backend.js';
import { createS3Client, S3Backend } from './s3-backend.js';

/** The back end of a location (`FILE_STORAGE`, or the other end of `storage migrate`). */
export function openBackend(location: StorageLocation, s3: S3Settings, rows: FileObjectRows): ObjectBackend {
  if (location.kind === 'database') return new DatabaseBackend(rows);
  if (location.kind === 'fs') return new FsBackend(location.dir);
  return new S3Backend(createS3Client(s3), location.bucket, location.prefix);
}

/**
 * The file storage of a configuration: the configured back end, the store's rows, and collab-host's
 * own signed links (TOKEN_SECRET, PUBLIC_URL) for bytes that are not presigned.
 */
export function createFileStorage(
  settings: { storage: StorageConfig; tokenSecret: string; publicUrl: string },
  rows: FileObjectRows,
  options: Pick<FileStorageOptions, 'now' | 'warn'> = {},
): FileStorage {
  return new FileStorage(rows, openBackend(settings.storage.location, settings.storage.s3, rows), new DownloadLinks(settings.tokenSecret, settings.publicUrl), {
    maxUploadBytes: settings.storage.maxUploadBytes,
    presignTtlSeconds: settings.storage.presignTtlSeconds,
    ...options,
  });
}
