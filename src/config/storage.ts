import { resolve } from 'node:path';
import { parseDuration } from '../shared/duration.js';
import { ConfigError } from './config-error.js';

/** Where the bytes of third-party files are kept (`FILE_STORAGE`, or `storage migrate --to`). */
export type StorageLocation =
  | { readonly kind: 'database' }
  /** `fs:DIR`: files under DIR (made absolute against the working directory when read). */
  | { readonly kind: 'fs'; readonly dir: string }
  /** `s3://BUCKET/PREFIX`: objects in BUCKET, keys under PREFIX (no leading or trailing `/`; may be empty). */
  | { readonly kind: 's3'; readonly bucket: string; readonly prefix: string };

/** How to reach an S3-compatible store: the standard AWS variables plus `S3_ENDPOINT` and `S3_FORCE_PATH_STYLE`. */
export interface S3Settings {
  /** AWS_REGION (or AWS_DEFAULT_REGION); `us-east-1` when neither is set (MinIO and most others ignore it). */
  readonly region: string;
  /** S3_ENDPOINT: the store's address for anything but AWS itself (MinIO, OSS, COS); undefined for AWS. */
  readonly endpoint: string | undefined;
  /** S3_FORCE_PATH_STYLE: `http://host/bucket/key` instead of `http://bucket.host/key` (MinIO wants true). */
  readonly forcePathStyle: boolean;
  /** AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN); undefined: the SDK's default chain. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string; readonly sessionToken?: string } | undefined;
}

export interface StorageConfig {
  /** FILE_STORAGE: where new uploads go and where bytes outside the database are read from. */
  readonly location: StorageLocation;
  readonly s3: S3Settings;
  /** FILE_MAX_SIZE: the largest upload accepted, in bytes (413 past it). */
  readonly maxUploadBytes: number;
  /** S3_PRESIGN_TTL: lifetime of a presigned download link, in seconds. */
  readonly presignTtlSeconds: number;
}

const DEFAULT_MAX_UPLOAD = '100MB';
const DEFAULT_PRESIGN_TTL = '5m';
/** S3 refuses presigned links that live longer than a week. */
const MAX_PRESIGN_SECONDS = 7 * 86_400;
const SIZE_UNITS: Record<string, number> = { '': 1, B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** Reads the storage section from the environment (see docs/storage.md for every variable). */
export function readStorageConfig(get: (name: string) => string | undefined): StorageConfig {
  const storage = get('FILE_STORAGE') ?? 'database';
  const location = parseStorageUrl(storage);
  if (!location) throw new ConfigError('FILE_STORAGE must be database, fs:DIR or s3://BUCKET/PREFIX');

  const maxUploadBytes = parseSize(get('FILE_MAX_SIZE') ?? DEFAULT_MAX_UPLOAD);
  if (maxUploadBytes === undefined || maxUploadBytes < 1) throw new ConfigError('FILE_MAX_SIZE must be a size such as 1048576, 500KB, 100MB or 2GB');

  const presignTtlSeconds = parseDuration(get('S3_PRESIGN_TTL') ?? DEFAULT_PRESIGN_TTL);
  if (presignTtlSeconds === undefined || presignTtlSeconds < 1 || presignTtlSeconds > MAX_PRESIGN_SECONDS) {
    throw new ConfigError('S3_PRESIGN_TTL must be a duration from 1s to 7d, such as 300, 90s or 5m');
  }

  const endpoint = get('S3_ENDPOINT');
  if (endpoint !== undefined && !isHttpUrl(endpoint)) throw new ConfigError('S3_ENDPOINT must be an http(s):// address');

  const forcePathStyle = get('S3_FORCE_PATH_STYLE') ?? 'false';
  if (!/^(true|false|1|0)$/i.test(forcePathStyle)) throw new ConfigError('S3_FORCE_PATH_STYLE must be true or false');

  const accessKeyId = get('AWS_ACCESS_KEY_ID');
  const secretAccessKey = get('AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together (or neither, for the SDK default credentials)');
  }
  const sessionToken = get('AWS_SESSION_TOKEN');
  const credentials =
    accessKeyId !== undefined && secretAccessKey !== undefined
      ? Object.freeze({ accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) })
      : undefined;

  return Object.freeze({
    location,
    s3: Object.freeze({
      region: get('AWS_REGION') ?? get('AWS_DEFAULT_REGION') ?? 'us-east-1',
      endpoint: endpoint?.replace(/\/+$/, ''),
      forcePathStyle: /^(true|1)$/i.test(forcePathStyle),
      credentials,
    }),
    maxUploadBytes,
    presignTtlSeconds,
  });
}

/**
 * `database`, `fs:DIR` or `s3://BUCKET/PREFIX` as a location; undefined when the text is none of them.
 * A relative DIR is made absolute against the working directory.
 */
export function parseStorageUrl(text: string): StorageLocation | undefined {
  const value = text.trim();
  if (value === 'database') return Object.freeze({ kind: 'database' });
  if (value.startsWith('fs:')) {
    const dir = value.slice('fs:'.length);
    return dir === '' || dir.includes('\0') ? undefined : Object.freeze({ kind: 'fs', dir: resolve(dir) });
  }
  const s3 = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(value);
  if (s3) {
    const prefix = (s3[2] ?? '').replace(/^\/+|\/+$/g, '');
    return /[\0\r\n]/.test(prefix) ? undefined : Object.freeze({ kind: 's3', bucket: s3[1]!, prefix });
  }
  return undefined;
}

/** The location as the operator writes it (`database`, `fs:/abs/dir`, `s3://bucket/prefix`). */
export function describeLocation(location: StorageLocation): string {
  if (location.kind === 'database') return 'database';
  if (location.kind === 'fs') return `fs:${location.dir}`;
  return `s3://${location.bucket}${location.prefix === '' ? '' : `/${location.prefix}`}`;
}

/** `1048576`, `500KB`, `100MB`, `2GB` (binary units) in bytes; undefined when malformed. */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+)\s*(B|KB|MB|GB)?$/i.exec(text.trim());
  if (!match) return undefined;
  const bytes = Number(match[1]) * SIZE_UNITS[(match[2] ?? '').toUpperCase()]!;
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

function isHttpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value) && URL.canParse(value);
}
