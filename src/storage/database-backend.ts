import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StorageLocation } from '../config/storage.js';
import type { FileObjectRows } from './file-object-rows.js';
import { MeasuredStream } from './measured-stream.js';
import type { ByteRange, ObjectBackend, OpenedObject, PutOptions, PutResult } from './object-backend.js';

/**
 * `FILE_STORAGE=database` (the default): the bytes ride in the file's own `file_contents` row. A put only
 * collects them (within the limit); FileStorage writes them with the row, in one transaction.
 */
export class DatabaseBackend implements ObjectBackend {
  readonly location: StorageLocation = Object.freeze({ kind: 'database' });

  constructor(private readonly rows: FileObjectRows) {}

  async put(_fileId: string, body: Readable, options: PutOptions): Promise<PutResult> {
    const measured = new MeasuredStream(options.maxBytes);
    const chunks: Buffer[] = [];
    await pipeline(body, measured, async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) chunks.push(chunk);
    });
    return { ...measured.measured, inline: Buffer.concat(chunks) };
  }

  async open(fileId: string): Promise<OpenedObject | undefined> {
    const bytes = await this.rows.readInline(fileId);
    return bytes && bufferObject(bytes);
  }

  /** The bytes go with the row, which FileStorage removes. */
  async delete(): Promise<void> {}

  async close(): Promise<void> {}
}

/** Bytes held in memory, opened. */
export function bufferObject(bytes: Buffer): OpenedObject {
  return {
    size: bytes.length,
    stream: async (range?: ByteRange) => Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes]),
    close: async () => undefined,
  };
}
