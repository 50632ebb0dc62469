import type { FileStorage } from './file-storage.js';
import type { HeldObject } from './object-backend.js';
import { objectKey } from './object-key.js';
import { everyObject } from './storage-migration.js';

/**
 * `storage orphans`: the objects of the configured back end (a directory or a bucket) that belong to no
 * stored file: bytes left behind when a file is removed from the directory (its row goes in the
 * directory's transaction; the object stays), when an `import --replace` drops a file's bytes, or by a
 * crash between an upload's write and its row (an upload's `.partial` file, too). Bytes replaced by a new
 * upload leave nothing: a file's object is at one key, written over. Only listed, never removed here: an
 * upload writes its object before its row, so a fresh object may have no row for a moment, and which
 * leftovers to keep is the operator's call. undefined when the back end is the database (bytes are rows).
 */
export async function listOrphans(storage: FileStorage): Promise<HeldObject[] | undefined> {
  const backend = storage.backend;
  if (!backend.list) return undefined;
  const held: HeldObject[] = [];
  for await (const object of backend.list()) held.push(object);
  // Rows read after the listing: an upload that finishes meanwhile has its row by then and is not counted.
  const owned = new Set<string>();
  for await (const object of everyObject(storage)) owned.add(objectKey(object.fileId));
  return held.filter((object) => !owned.has(object.key));
}
