import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, testConfig } from '../../src/config/config.js';
import { parseSize, parseStorageUrl, readStorageConfig } from '../../src/config/storage.js';
import { answerRange } from '../../src/storage/byte-range.js';

const read = (env: Record<string, string>) => readStorageConfig((name) => env[name]);
const refusal = (env: Record<string, string>) => {
  try {
    read(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('storage configuration', () => {
  it('defaults to the database, 100 MB uploads and five-minute presigned links; testConfig needs none of it', () => {
    expect(testConfig().storage).toEqual({
      location: { kind: 'database' },
      s3: { region: 'us-east-1', endpoint: undefined, forcePathStyle: false, credentials: undefined },
      maxUploadBytes: 100 * 1024 * 1024,
      presignTtlSeconds: 300,
    });
    expect(Object.isFrozen(loadConfig({}).storage)).toBe(true);
  });

  it('reads fs:DIR (made absolute), s3://BUCKET/PREFIX and the S3 and AWS variables', () => {
    expect(read({ FILE_STORAGE: 'fs:/var/lib/collab/files' }).location).toEqual({ kind: 'fs', dir: '/var/lib/collab/files' });
    expect(read({ FILE_STORAGE: 'fs:data/files' }).location).toEqual({ kind: 'fs', dir: `${process.cwd()}/data/files` });
    const s3 = read({
      FILE_STORAGE: 's3://company-files/collab/',
      S3_ENDPOINT: 'https://oss-cn-hangzhou.aliyuncs.com/',
      S3_FORCE_PATH_STYLE: 'true',
      AWS_REGION: 'oss-cn-hangzhou',
      AWS_ACCESS_KEY_ID: 'AKID',
      AWS_SECRET_ACCESS_KEY: 'secret',
      FILE_MAX_SIZE: '2GB',
      S3_PRESIGN_TTL: '90s',
    });
    expect(s3).toEqual({
      location: { kind: 's3', bucket: 'company-files', prefix: 'collab' },
      s3: { region: 'oss-cn-hangzhou', endpoint: 'https://oss-cn-hangzhou.aliyuncs.com', forcePathStyle: true, credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' } },
      maxUploadBytes: 2 * 1024 ** 3,
      presignTtlSeconds: 90,
    });
    expect(parseStorageUrl('s3://bucket')).toEqual({ kind: 's3', bucket: 'bucket', prefix: '' });
    expect(parseSize('500KB')).toBe(512_000);
    expect(parseSize('1048576')).toBe(1_048_576);
  });

  it('refuses malformed values with one line naming the variable', () => {
    expect(refusal({ FILE_STORAGE: 's3:/bucket' })).toBe('FILE_STORAGE must be database, fs:DIR or s3://BUCKET/PREFIX');
    expect(refusal({ FILE_STORAGE: 's3://Bad_Bucket' })).toMatch(/^FILE_STORAGE/);
    expect(refusal({ FILE_STORAGE: 'fs:' })).toMatch(/^FILE_STORAGE/);
    expect(refusal({ FILE_MAX_SIZE: '10 apples' })).toMatch(/^FILE_MAX_SIZE must be a size/);
    expect(refusal({ FILE_MAX_SIZE: '0' })).toMatch(/^FILE_MAX_SIZE/);
    expect(refusal({ S3_PRESIGN_TTL: '8d' })).toMatch(/^S3_PRESIGN_TTL must be a duration from 1s to 7d/);
    expect(refusal({ S3_ENDPOINT: 'minio:9000' })).toBe('S3_ENDPOINT must be an http(s):// address');
    expect(refusal({ S3_FORCE_PATH_STYLE: 'maybe' })).toBe('S3_FORCE_PATH_STYLE must be true or false');
    expect(refusal({ AWS_ACCESS_KEY_ID: 'AKID' })).toMatch(/^AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together/);
    expect(() => loadConfig({ FILE_STORAGE: 'ftp://x' })).toThrow(ConfigError);
  });
});

describe('byte ranges', () => {
  const etag = '"abc"';
  const answer = (header: string | undefined, size = 100, ifRange?: string) => answerRange(header, size, { etag, ...(ifRange ? { ifRange } : {}) });
  it('answers one range, clamped, a suffix, and past the end unsatisfiable', () => {
    expect(answer('bytes=0-9')).toEqual({ kind: 'part', range: { start: 0, end: 9 } });
    expect(answer('bytes=90-200')).toEqual({ kind: 'part', range: { start: 90, end: 99 } });
    expect(answer('bytes=95-')).toEqual({ kind: 'part', range: { start: 95, end: 99 } });
    expect(answer('bytes=-10')).toEqual({ kind: 'part', range: { start: 90, end: 99 } });
    expect(answer('bytes=-500')).toEqual({ kind: 'part', range: { start: 0, end: 99 } });
    expect(answer('bytes=100-')).toEqual({ kind: 'unsatisfiable' });
    expect(answer('bytes=-0')).toEqual({ kind: 'unsatisfiable' });
    expect(answer('bytes=0-', 0)).toEqual({ kind: 'unsatisfiable' });
  });
  it('serves the whole for no, malformed, reversed, multiple or other-unit ranges, and for a stale If-Range', () => {
    for (const header of [undefined, 'bytes=', 'bytes=5-2', 'bytes=0-1,5-6', 'items=0-1', 'bytes=a-b', 'bytes=-']) {
      expect(answer(header), String(header)).toEqual({ kind: 'whole' });
    }
    expect(answer('bytes=0-9', 100, '"old"')).toEqual({ kind: 'whole' });
    expect(answer('bytes=0-9', 100, etag)).toEqual({ kind: 'part', range: { start: 0, end: 9 } });
  });
});
