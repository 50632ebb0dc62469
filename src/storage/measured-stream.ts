import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { ObjectTooLarge } from './object-backend.js';

/**
 * Passes bytes through while counting and hashing them; past `maxBytes` it fails with ObjectTooLarge,
 * so whatever reads it (a file, an upload) stops and throws its partial copy away.
 */
export class MeasuredStream extends Transform {
  private readonly hash = createHash('sha256');
  private count = 0;
  private digest: string | undefined;

  constructor(private readonly maxBytes: number = Number.POSITIVE_INFINITY) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.count += chunk.length;
    if (this.count > this.maxBytes) return done(new ObjectTooLarge(this.maxBytes));
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    this.digest = this.hash.digest('hex');
    done();
  }

  /** Size and hex SHA-256 of everything that passed; only once the stream has ended. */
  get measured(): { size: number; sha256: string } {
    if (this.digest === undefined) throw new Error('the stream has not ended');
    return { size: this.count, sha256: this.digest };
  }
}
