/**
 * The manifest of a backup (`manifest.json` in its directory): what took it, the store's migrations at
 * that moment, and for every table its row count and the SHA-256 of its file, so a restore can refuse a
 * damaged or newer backup before it changes anything. Documented in docs/operations.md ("Backup and restore").
 */
export const BACKUP_FORMAT = 'collab-host-backup';
/** The layout of the backup directory; a restore refuses a higher one (a newer collab-host wrote it). */
export const BACKUP_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

export interface BackupTableEntry {
  /** Rows in the table at the moment of the backup. */
  rows: number;
  /** The table's rows, one JSON object a line, relative to the backup directory. */
  file: string;
  /** Size and hex SHA-256 of that file. */
  bytes: number;
  sha256: string;
}

export interface BackupContents {
  /** Where the service kept file bytes (FILE_STORAGE) when the backup was taken. */
  location: 'database' | 'fs' | 's3';
  /** Files whose bytes are in the backup (`contents/`), and those bytes together. */
  included: number;
  bytes: number;
  /** Files whose bytes stayed where they are (an S3 bucket): the bucket's own versioning keeps them. */
  notIncluded: number;
  /** Files under `fs:` replaced or removed while the backup ran: their newer bytes (or none) are in it. */
  changedDuringBackup: number;
}

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  formatVersion: number;
  /** The collab-host version that took the backup. */
  version: string;
  /** The store it was taken from; a backup restores into either store. */
  dialect: string;
  startedAt: string;
  finishedAt: string;
  /** The migrations applied to the store, sorted. */
  migrations: string[];
  tables: Record<string, BackupTableEntry>;
  contents: BackupContents;
}

/** Why a restore refused a backup, or a backup could not be taken: one line for the operator. */
export class BackupRefused extends Error {
  override name = 'BackupRefused';
  constructor(
    readonly reason: 'not_a_backup' | 'damaged' | 'newer' | 'not_empty' | 'exists' | 'unsupported',
    message: string,
  ) {
    super(message);
  }
}

/** Reads a manifest's text; undefined when it is not one (unparseable, or missing what every manifest has). */
export function parseManifest(text: string): BackupManifest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const manifest = value as Partial<BackupManifest> | null;
  if (!manifest || typeof manifest !== 'object' || manifest.format !== BACKUP_FORMAT || typeof manifest.formatVersion !== 'number') return undefined;
  if (manifest.formatVersion > BACKUP_FORMAT_VERSION) return manifest as BackupManifest; // the caller refuses it as newer
  if (!Array.isArray(manifest.migrations) || !manifest.tables || typeof manifest.tables !== 'object' || !manifest.contents) return undefined;
  return manifest as BackupManifest;
}
