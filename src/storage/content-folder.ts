import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { CONTENT_MANIFEST, type ContentManifest } from '../snapshot/content-manifest.js';
import type { StoredContentSource } from './file-storage.js';
import { MeasuredStream } from './measured-stream.js';

/** An export cannot carry a file's bytes (missing where its row says, or not the recorded ones): nothing is written. */
export class ContentExportError extends Error {
  override name = 'ContentExportError';
}

/**
 * The folder an export writes stored bytes into (`FILE-contents/` beside the snapshot): one file per stored
 * file, read through the file storage from wherever its bytes are (database row, directory, bucket),
 * checked against the recorded SHA-256 as it is written, and listed in `.contents.json` with its media
 * type, size and hash so that the import restores them as they were.
 */
export class ContentFolder {
  private readonly used = new Set<string>();
  // Keyed by file names made from file ids (`__proto__` among them): no prototype to reach.
  private readonly manifest: ContentManifest = Object.create(null) as ContentManifest;

  /** `folder`: where to write; `relative`: the same folder as `contentFile` names it (from the snapshot's folder). */
  constructor(
    private readonly storage: Pick<StoredContentSource, 'open'>,
    private readonly folder: string,
    private readonly relative: string,
  ) {}

  /** The files placed, in order, with the names their bytes get. */
  private readonly placed: Array<{ id: string; name: string }> = [];

  /**
   * Gives one file's bytes their place in the folder; answers its `contentFile`. Nothing is read or
   * written yet (an export places them while it reads its snapshot): `writePlaced` writes them.
   */
  place(file: { id: string; ext: string | null }): string {
    const name = uniqueName(this.used, safeFileName(file.id, file.ext));
    this.placed.push({ id: file.id, name });
    return `${this.relative}/${name}`;
  }

  /**
   * Writes the bytes of every placed file, in order, then the manifest (nothing when no file was
   * placed); answers how many. Stops at the first file whose bytes are missing or not the recorded ones.
   */
  async writePlaced(): Promise<number> {
    for (const { id, name } of this.placed) await this.write(id, name);
    const count = Object.keys(this.manifest).length;
    if (count > 0) await writeFile(join(this.folder, CONTENT_MANIFEST), `${JSON.stringify(this.manifest, null, 2)}\n`);
    return count;
  }

  private async write(id: string, name: string): Promise<void> {
    const opened = await this.storage.open(id);
    // Placed while the snapshot was read, opened after it: the file may have been removed since.
    if (!opened) {
      throw new ContentExportError(
        `the stored bytes of file ${id} are gone: the file was removed while the export ran (run it again), or its bytes are not where its row says (\`collab-host storage verify\` lists such files)`,
      );
    }
    await mkdir(this.folder, { recursive: true });
    const measured = new MeasuredStream();
    await pipeline(await opened.bytes.stream(), measured, createWriteStream(join(this.folder, name)));
    const { size, sha256 } = measured.measured;
    if (sha256 !== opened.object.sha256) {
      throw new ContentExportError(`the stored bytes of file ${id} have SHA-256 ${sha256}, not the recorded ${opened.object.sha256}`);
    }
    this.manifest[name] = { contentType: opened.object.contentType, size, sha256 };
  }
}

/** A file name for a file id: safe on every file system, the extension kept; never starts with a dot. */
function safeFileName(id: string, ext: string | null): string {
  const stem =
    id
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 100) || 'file';
  return ext && /^[A-Za-z0-9]{1,16}$/.test(ext) && !stem.toLowerCase().endsWith(`.${ext.toLowerCase()}`) ? `${stem}.${ext}` : stem;
}

function uniqueName(used: Set<string>, name: string): string {
  let candidate = name;
  for (let n = 2; used.has(candidate.toLowerCase()); n += 1) candidate = `${n}-${name}`;
  used.add(candidate.toLowerCase());
  return candidate;
}
