import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type S3rver from 's3rver';
import { describe } from 'vitest';

/**
 * A real S3 implementation for the tests: s3rver (a devDependency, so CI always has it) on a free port of
 * 127.0.0.1, storing under a temporary directory, with one bucket. Its account is S3RVER / S3RVER.
 *
 * What s3rver checks (lib/middleware/authentication.js of 3.7.1): that the access key id is known and
 * that a presigned V4 link has not expired; it serves multipart uploads, ranges and response-header
 * overrides. It does NOT recompute V4 signatures: a link whose signature bytes were altered but whose key
 * id and dates are intact is accepted by s3rver (AWS, MinIO, OSS and COS refuse it).
 */
export const S3RVER_KEY = 'S3RVER';
export const TEST_BUCKET = 'collab-test';

const installed = await import('s3rver').then(
  () => true,
  () => false,
);

export interface S3TestServer {
  endpoint: string;
  /** The environment that points collab-host at this server (FILE_STORAGE under `prefix`). */
  env(prefix: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startS3rver(): Promise<S3TestServer> {
  const { default: S3rver } = await import('s3rver');
  const directory = mkdtempSync(join(tmpdir(), 'ch-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: TEST_BUCKET }] });
  await writeBeforeAnswering(server);
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    env: (prefix) => ({
      FILE_STORAGE: `s3://${TEST_BUCKET}/${prefix}`,
      S3_ENDPOINT: endpoint,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: S3RVER_KEY,
      AWS_SECRET_ACCESS_KEY: S3RVER_KEY,
      AWS_REGION: 'us-east-1',
    }),
    close: async () => {
      server.httpServer.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * s3rver 3.7.1 answers a PUT (and the completion of a multipart upload) once the bytes have passed its
 * hashing transform, before its write stream has put them in the file (stores/filesystem.js,
 * putObject), so a read right after can see a short object. Real stores answer after the write: this
 * makes s3rver's store do the same, with the same layout and metadata.
 */
async function writeBeforeAnswering(server: S3rver): Promise<void> {
  const store = server.store;
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(objectPath), { recursive: true });
    const md5 = createHash('md5');
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    await pipeline(content, measure, createWriteStream(objectPath));
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}

/** `describe` when s3rver is installed; otherwise a skipped suite and a line saying so. */
export function describeWithS3rver(title: string, suite: () => void): void {
  if (installed) {
    describe(title, suite);
    return;
  }
  console.log(`\n*** S3 tests SKIPPED (${title}): s3rver is not installed; \`npm ci\` installs it (devDependency) ***\n`);
  describe.skip(title, suite);
}
