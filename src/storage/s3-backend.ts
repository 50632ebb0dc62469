import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Settings, StorageLocation } from '../config/storage.js';
import { contentDisposition } from './download-name.js';
import { MeasuredStream } from './measured-stream.js';
import { ObjectTooLarge, type ByteRange, type HeldObject, type ObjectBackend, type OpenedObject, type PresignOptions, type PutOptions, type PutResult } from './object-backend.js';
import { objectKey } from './object-key.js';

/** Parts of a multipart upload: S3's smallest, so memory per upload stays at a few parts. */
export const S3_PART_BYTES = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

/**
 * The SDK client for any S3-compatible store. Checksums only where the operation requires them: the
 * SDK's default (a CRC32 trailer on every upload, `x-amz-checksum-mode` on every read) is refused or
 * mangled by stores other than AWS (older MinIO, OSS, COS, s3rver).
 */
export function createS3Client(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    // A copy: the SDK marks the credentials object it is given (the configuration's is frozen).
    ...(settings.credentials === undefined ? {} : { credentials: { ...settings.credentials } }),
  });
}

/**
 * `FILE_STORAGE=s3://BUCKET/PREFIX`: one object per stored file, `PREFIX/ab/ab12…` (see objectKey).
 * Uploads stream through lib-storage (multipart past one part, aborted on failure, so a refused upload
 * leaves nothing); reads are pinned to the ETag they opened; downloads are presigned GETs.
 */
export class S3Backend implements ObjectBackend {
  readonly location: StorageLocation;

  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
  ) {
    this.location = Object.freeze({ kind: 's3', bucket, prefix });
  }

  async put(fileId: string, body: Readable, options: PutOptions): Promise<PutResult> {
    const measured = new MeasuredStream(options.maxBytes);
    // Caught at once (the upload notices the failure later, through its body): kept to say why it failed.
    let bodyFailure: unknown;
    const piping = pipeline(body, measured).catch((failure: unknown) => {
      bodyFailure = failure;
    });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.keyOf(fileId), Body: measured, ContentType: options.contentType },
      partSize: S3_PART_BYTES,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
      await piping;
      if (bodyFailure !== undefined) throw bodyFailure;
    } catch (error) {
      measured.destroy();
      await piping;
      // Past the size limit, say so, not how the upload noticed.
      throw bodyFailure instanceof ObjectTooLarge ? bodyFailure : error;
    }
    return { ...measured.measured, inline: null };
  }

  async open(fileId: string): Promise<OpenedObject | undefined> {
    const key = this.keyOf(fileId);
    let head;
    try {
      head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    const etag = head.ETag;
    return {
      size: Number(head.ContentLength ?? 0),
      stream: async (range?: ByteRange) => {
        const object = await this.client.send(
          new GetObjectCommand({
            Bucket: this.bucket,
            Key: key,
            ...(etag === undefined ? {} : { IfMatch: etag }),
            ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
          }),
        );
        return object.Body as Readable;
      },
      close: async () => undefined,
    };
  }

  async delete(fileId: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.keyOf(fileId) }));
  }

  async *list(): AsyncIterable<HeldObject> {
    const under = this.prefix === '' ? '' : `${this.prefix}/`;
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: under, ...(token === undefined ? {} : { ContinuationToken: token }) }));
      for (const object of page.Contents ?? []) {
        if (object.Key === undefined) continue;
        yield {
          key: object.Key.slice(under.length),
          address: `s3://${this.bucket}/${object.Key}`,
          size: Number(object.Size ?? 0),
          modifiedAt: object.LastModified?.getTime() ?? 0,
        };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  async presign(fileId: string, options: PresignOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: this.keyOf(fileId),
      ResponseContentDisposition: contentDisposition(options.fileName),
      ResponseContentType: presignedContentType(options.contentType),
    });
    return getSignedUrl(this.client, command, { expiresIn: options.expiresInSeconds, signingDate: new Date(options.now) });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }

  private keyOf(fileId: string): string {
    return this.prefix === '' ? objectKey(fileId) : `${this.prefix}/${objectKey(fileId)}`;
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof S3ServiceException && (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404);
}

/** Media types a browser runs as a page or a script of the bucket's origin when it opens them. */
const ACTIVE_CONTENT =
  /^\s*(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml|[\w.+-]+\/[\w.+-]*\+xml|text\/javascript|application\/(x-)?javascript|application\/ecmascript|text\/xsl)\s*(;|$)/i;

/**
 * The media type a presigned GET answers with. S3's response overrides (`response-content-type`,
 * `response-content-disposition`, …) cannot add `X-Content-Type-Options: nosniff` or a CSP, as
 * `/content/{fileId}` does: active content (HTML, SVG, XML, script) is answered as
 * `application/octet-stream` instead, so that it is only ever downloaded (with `attachment`), never run.
 */
export function presignedContentType(contentType: string | undefined): string | undefined {
  return contentType !== undefined && ACTIVE_CONTENT.test(contentType) ? 'application/octet-stream' : contentType;
}
