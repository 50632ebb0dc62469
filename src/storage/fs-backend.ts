import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StorageLocation } from '../config/storage.js';
import { MeasuredStream } from './measured-stream.js';
import type { ByteRange, HeldObject, ObjectBackend, OpenedObject, PutOptions, PutResult } from './object-backend.js';
import { objectKey } from './object-key.js';

/**
 * `FILE_STORAGE=fs:DIR`: one file per stored file under DIR (`DIR/ab/ab12…`, see objectKey). A put writes
 * a temporary file beside the target, syncs it and renames it over the old one, so a reader sees the old
 * bytes or the new, never half; a reader that opened the old file keeps reading it.
 */
export class FsBackend implements ObjectBackend {
  readonly location: StorageLocation;

  constructor(private readonly dir: string) {
    this.location = Object.freeze({ kind: 'fs', dir });
  }

  async put(fileId: string, body: Readable, options: PutOptions): Promise<PutResult> {
    const path = this.pathOf(fileId);
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.partial`;
    const measured = new MeasuredStream(options.maxBytes);
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await pipeline(body, measured, async (source: AsyncIterable<Buffer>) => {
        for await (const chunk of source) await handle.write(chunk);
      });
      await handle.sync();
      await handle.close();
      await rename(temporary, path);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    return { ...measured.measured, inline: null };
  }

  async open(fileId: string): Promise<OpenedObject | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(this.pathOf(fileId), 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const { size } = await handle.stat();
    let streaming = false;
    return {
      size,
      stream: async (range?: ByteRange) => {
        streaming = true;
        return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
      },
      close: async () => {
        if (!streaming) await handle.close();
      },
    };
  }

  async delete(fileId: string): Promise<void> {
    await unlink(this.pathOf(fileId)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }

  async *list(): AsyncIterable<HeldObject> {
    for (const folder of await entries(this.dir)) {
      if (!/^[0-9a-f]{2}$/.test(folder)) continue; // not one of ours
      for (const name of await entries(join(this.dir, folder))) {
        const address = join(this.dir, folder, name);
        const found = await stat(address).catch(() => undefined); // removed meanwhile
        if (found?.isFile()) yield { key: `${folder}/${name}`, address, size: found.size, modifiedAt: found.mtimeMs };
      }
    }
  }

  async close(): Promise<void> {}

  private pathOf(fileId: string): string {
    return join(this.dir, objectKey(fileId));
  }
}

/** The names in a directory; none when it does not exist (nothing stored yet) or is not a directory. */
async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}
