import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** A file written line by line (or chunk by chunk) while its size and SHA-256 are counted. */
export class HashedFileWriter {
  private readonly out: WriteStream;
  private readonly hash = createHash('sha256');
  private size = 0;

  constructor(path: string) {
    this.out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  }

  async write(chunk: string | Buffer): Promise<void> {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.hash.update(bytes);
    this.size += bytes.length;
    if (!this.out.write(bytes)) await once(this.out, 'drain');
  }

  /** Closes the file (flushed to disk); its size and hex SHA-256. */
  async finish(): Promise<{ bytes: number; sha256: string }> {
    await new Promise<void>((resolve, reject) => {
      this.out.once('error', reject);
      this.out.end(() => resolve());
    });
    return { bytes: this.size, sha256: this.hash.digest('hex') };
  }

  /** Closes the file after a failure (the caller removes it). */
  abort(): void {
    this.out.destroy();
  }
}

/** The hex SHA-256 and size of a file, or undefined when it does not exist. */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number } | undefined> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    throw error;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** The lines of a text file, `size` at a time (empty lines skipped). */
export async function* lineBatches(path: string, size: number): AsyncIterable<string[]> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let batch: string[] = [];
  for await (const line of lines) {
    if (line === '') continue;
    batch.push(line);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
