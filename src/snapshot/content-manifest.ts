import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * What an export records beside the bytes it writes: one `.contents.json` in the folder of the content
 * files, naming each by its file name with the media type, size and SHA-256 the store had for it. The
 * snapshot format (contracts.md) has no field for them, and a media type given on upload cannot be told
 * from an extension, so the import reads them here and checks the bytes against them. A snapshot written
 * by hand needs none: the media type then follows the extension. The leading dot keeps it apart from
 * every content file name an export writes.
 */
export const CONTENT_MANIFEST = '.contents.json';

export interface ContentRecord {
  contentType: string;
  size: number;
  /** Hex SHA-256. */
  sha256: string;
}

export type ContentManifest = Record<string, ContentRecord>;

/** Reads the manifests beside content files, each folder once. */
export class ContentManifests {
  private readonly byFolder = new Map<string, ContentManifest | string | undefined>();

  /**
   * The record of the content file at `path`: undefined when its folder has no manifest or the manifest
   * does not name it; a string saying what is wrong when the manifest is unreadable or malformed.
   */
  recordOf(path: string): ContentRecord | undefined | string {
    const folder = dirname(path);
    if (!this.byFolder.has(folder)) this.byFolder.set(folder, readManifest(join(folder, CONTENT_MANIFEST)));
    const manifest = this.byFolder.get(folder);
    if (typeof manifest === 'string' || manifest === undefined) return manifest;
    return Object.hasOwn(manifest, basename(path)) ? manifest[basename(path)] : undefined;
  }
}

function readManifest(path: string): ContentManifest | string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : `${CONTENT_MANIFEST} beside it cannot be read (${(error as NodeJS.ErrnoException).code})`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `${CONTENT_MANIFEST} beside it is not valid JSON`;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return `${CONTENT_MANIFEST} beside it must be an object`;
  for (const [name, record] of Object.entries(parsed)) {
    if (!isRecord(record)) return `${CONTENT_MANIFEST} beside it has a malformed entry "${name}" (contentType, size, sha256)`;
  }
  return parsed as ContentManifest;
}

function isRecord(value: unknown): value is ContentRecord {
  const record = value as Partial<ContentRecord> | null;
  return (
    typeof record === 'object' &&
    record !== null &&
    typeof record.contentType === 'string' &&
    record.contentType.length > 0 &&
    Number.isSafeInteger(record.size) &&
    record.size! >= 0 &&
    typeof record.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(record.sha256)
  );
}
